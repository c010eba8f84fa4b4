package dev.cairn.network.live;

import dev.cairn.nostr.EventParser;
import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.NostrEvent;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.impl.Headers;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * One pod's end of live fan-out over core NATS: publishes the events this pod dispatches on
 * {@code <prefix>-live.<tenant>} and hands the other pods' to its owner, decoded, on the jnats dispatcher
 * thread (the owner passes them on through a channel of the tree, so that they reach its inbox in order
 * and exactly like its other messages).
 * Fire and forget by design: a message lost (NATS down, a slow subscriber, a full queue) shows up at the
 * receiving pods as a seq gap, which they read from the store ({@link LiveSequencer}); so publishing
 * never waits and never fails the local path.
 *
 * <p>Message: headers {@code Cairn-Pod} (publisher's pod id), {@code Cairn-Seq} (store seq, 0 for an
 * ephemeral event), body the event's JSON as stored; the tenant is the subject's last token.
 */
public final class LiveBus {
  private static final Logger LOG = Logger.getLogger(LiveBus.class.getName());
  static final String POD = "Cairn-Pod";
  static final String SEQ = "Cairn-Seq";
  /** Marks a beacon: no event, "seqs up to Cairn-Seq are committed" (see {@link LiveSequencer#observe}). */
  static final String BEACON = "Cairn-Beacon";
  private static final byte[] NO_BODY = new byte[0];

  /** One event another pod published; {@code event} null for a beacon (only {@code seq}: its high water). */
  public record Received(String pod, String tenant, long seq, NostrEvent event) {
    public boolean beacon() {
      return event == null;
    }
  }

  private final Vertx vertx;
  private final LiveSettings settings;
  private final Predicate<Received> onReceived;
  private final String subjectStart;
  private final AtomicBoolean subscribed = new AtomicBoolean();
  private final AtomicLong dropped = new AtomicLong();
  private volatile Connection connection;
  private volatile boolean closed;

  /**
   * {@code onReceived} runs on one jnats dispatcher thread, in the order NATS delivered, and must not
   * block; it returns false when it could not take the message (counted as dropped: a stored one comes
   * back through a catch-up read).
   */
  public LiveBus(Vertx vertx, LiveSettings settings, Predicate<Received> onReceived) {
    this.vertx = vertx;
    this.settings = settings;
    this.onReceived = onReceived;
    this.subjectStart = settings.subjectPrefix() + "-live.";
  }

  /**
   * Connects in the background (jnats retries forever, the first connect too), so the pod serves its
   * own clients while NATS is down. Completes at once.
   */
  public Future<Void> start() {
    Options options = new Options.Builder()
        .server(settings.natsUrl())
        .connectionName("cairn-live-" + settings.podId())
        .connectionTimeout(Duration.ofSeconds(2))
        .maxReconnects(-1)
        .reconnectWait(Duration.ofMillis(500))
        // a full outgoing queue drops (the receivers catch up) instead of blocking the event loop
        .maxMessagesInOutgoingQueue(65_536)
        .discardMessagesWhenOutgoingQueueFull()
        .connectionListener(this::event)
        .errorListener(new ErrorListener() {})
        .build();
    return vertx.executeBlocking(() -> {
      Nats.connectAsynchronously(options, true);
      return null;
    }, false).mapEmpty();
  }

  private void event(Connection conn, ConnectionListener.Events ev) {
    if (ev == ConnectionListener.Events.CONNECTED || ev == ConnectionListener.Events.RECONNECTED
        || ev == ConnectionListener.Events.RESUBSCRIBED) {
      if (closed) {
        // connected after close(): end it off this jnats thread (close waits for jnats' own threads)
        Thread t = new Thread(() -> {
          try {
            conn.close();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }, "cairn-live-close");
        t.setDaemon(true);
        t.start();
        return;
      }
      connection = conn;
      // jnats keeps the subscription across reconnects: subscribe once.
      if (subscribed.compareAndSet(false, true)) {
        Dispatcher d = conn.createDispatcher(this::onMessage);
        d.subscribe(settings.wildcard());
        LOG.info("live fan-out: pod " + settings.podId() + " connected to NATS at " + settings.natsUrl()
            + ", subject " + settings.wildcard());
      }
    } else if (ev == ConnectionListener.Events.DISCONNECTED) {
      LOG.warning("live fan-out: lost NATS at " + settings.natsUrl()
          + "; other pods' events are read from the store when it is back");
    }
  }

  /**
   * Publishes one event this pod dispatched; false when it was not handed to NATS (not connected, queue
   * full). Never blocks: other pods recover a missing stored event from the store.
   */
  public boolean publish(String tenant, long seq, byte[] eventJson) {
    return send(tenant, new Headers().put(POD, settings.podId()).put(SEQ, Long.toString(seq)), eventJson);
  }

  /**
   * Tells the other pods that this pod's writes of {@code tenant} reached {@code seq}, so that a lost
   * last message is caught up without waiting for the tenant's next write. Same subject as the events,
   * so it never overtakes them.
   */
  public boolean beacon(String tenant, long seq) {
    return send(tenant, new Headers().put(POD, settings.podId()).put(SEQ, Long.toString(seq)).put(BEACON, "1"),
        NO_BODY);
  }

  private boolean send(String tenant, Headers h, byte[] body) {
    Connection c = connection;
    if (c == null || closed || c.getStatus() != Connection.Status.CONNECTED) {
      dropped.incrementAndGet();
      return false;
    }
    try {
      c.publish(settings.subject(tenant), h, body);
      return true;
    } catch (RuntimeException e) {
      dropped.incrementAndGet();
      return false;
    }
  }

  /** On a jnats dispatcher thread: decode here (off the event loop), then hand over. */
  private void onMessage(Message m) {
    Headers h = m.getHeaders();
    String pod = h == null ? null : h.getFirst(POD);
    if (pod == null || pod.equals(settings.podId()) || !m.getSubject().startsWith(subjectStart)) {
      return; // our own publication, or not ours to read
    }
    Received r;
    try {
      long seq = Long.parseLong(h.getFirst(SEQ));
      NostrEvent event = h.containsKey(BEACON) ? null : EventParser.parse(m.getData());
      r = new Received(pod, m.getSubject().substring(subjectStart.length()), seq, event);
    } catch (NumberFormatException | InvalidMessageException | NullPointerException e) {
      LOG.warning("live fan-out: ignored a malformed message from pod " + pod + " on " + m.getSubject() + ": " + e);
      return;
    }
    if (!onReceived.test(r)) {
      dropped.incrementAndGet();
    }
  }

  /** Messages not published or not delivered to the owner (each stored one is caught up as a gap). */
  public long dropped() {
    return dropped.get();
  }

  /** True while connected to NATS. */
  public boolean connected() {
    Connection c = connection;
    return c != null && c.getStatus() == Connection.Status.CONNECTED;
  }

  /** Closes the connection (on a worker thread: jnats' close waits for its threads). */
  public Future<Void> close() {
    closed = true;
    return vertx.executeBlocking(() -> {
      Connection c = connection;
      if (c != null) {
        c.close();
      }
      return null;
    }, false).mapEmpty();
  }
}
