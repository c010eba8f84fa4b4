package dev.cairn.network;

import dev.cairn.config.Limits;
import dev.cairn.nostr.ClientMessage;
import dev.cairn.nostr.ClientMessageParser;
import dev.cairn.nostr.EventTags;
import dev.cairn.nostr.Filter;
import dev.cairn.nostr.Hex;
import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.Kinds;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.nostr.RelayMessages;
import dev.cairn.nostr.RelayUrl;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Channels;
import dev.cairn.tree.Inbox;
import dev.cairn.tree.OrderedSender;
import dev.cairn.tree.Supervised;
import dev.cairn.metrics.CairnMetrics;
import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import dev.cairn.store.StoredEvent;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-connection protocol state: parses client frames, enforces the per-connection limits and
 * formats every outgoing frame. Holds no socket, no filter and no routing table: it answers
 * network-manager and writes formatted frames to the connection's listener.
 */
final class ConnWorker extends Supervised {
  private final int index;
  private final Limits limits;
  private final java.security.SecureRandom challenges = new java.security.SecureRandom();
  private final Channels channels;
  /** By connection id, unboxed: looked up once per connection per live event. */
  private final io.netty.util.collection.LongObjectHashMap<ConnState> conns = new io.netty.util.collection.LongObjectHashMap<>();
  private final Map<Integer, BoundedChannel<ListenerInbox>> listeners = new HashMap<>();
  private OrderedSender<NetworkInbox> toManager;
  private Inbox<ConnWorkerInbox> inbox;
  private final CairnMetrics metrics;
  private final SyncBudget syncBudget;
  /** NIP-77 sync sessions of this worker's connections; their large replies run on a worker pool. */
  private NegentropySessions syncs;
  private WorkerExecutor syncPool;

  /** What this worker knows of one connection. */
  private static final class ConnState {
    final String tenant;
    final int listener;
    /** Where the client reached this relay, in RelayUrl form (null when its Host made no URL). */
    final String relayUrl;
    /** Open subscriptions: sub id -> its EVENT frame prefix, built once. */
    final Map<String, byte[]> subs = new HashMap<>(4);
    /** REQs and COUNTs sent to network-manager and not answered yet: at most {@code limits.queries_per_connection}. */
    int readsOut;
    /** Those past that bound, in order (null while there are none). */
    ArrayDeque<WaitingRead> readsWaiting;
    /** The client does not read its answers (its listener said so): none of its waiting reads goes on. */
    boolean stalled;
    /** NIP-42: the challenge issued to this connection (null until needed) and who it proved to be. */
    String challenge;
    String authedPubkey;

    ConnState(String tenant, int listener, String relayUrl) {
      this.tenant = tenant;
      this.listener = listener;
      this.relayUrl = relayUrl;
    }
  }

  ConnWorker(int index, Limits limits, Channels channels, CairnMetrics metrics, SyncBudget syncBudget,
      CrashReporter manager) {
    super(manager);
    this.index = index;
    this.syncBudget = syncBudget;
    this.metrics = metrics;
    this.limits = limits;
    this.channels = channels;
  }

  @Override
  protected Future<?> startNode() {
    toManager = new OrderedSender<>(channels.open("conn-worker->network-manager", Addresses.NETWORK_MANAGER));
    inbox = new Inbox<>(vertx, Addresses.connWorker(index), ConnWorkerInbox.class, this::handle);
    // one pool for every conn-worker (shared by name), as many threads as cores: fingerprinting is pure CPU
    syncPool = vertx.createSharedWorkerExecutor("cairn-negentropy", Runtime.getRuntime().availableProcessors());
    syncs = new NegentropySessions(limits, syncBudget, syncPool, metrics::negentropySessions, (connId, frame) -> {
      ConnState c = conns.get(connId);
      if (c != null) {
        write(connId, c, frame);
      }
    });
    long timeout = limits.negentropyIdleTimeoutMillis();
    // idle sessions are found within a quarter of the timeout (at most 5 s late, never busier than 10/s)
    vertx.setPeriodic(Math.max(100, Math.min(timeout / 4, 5_000)), id -> syncs.sweepIdle(System.currentTimeMillis()));
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    if (syncs != null) {
      syncs.clear();
    }
    return syncPool == null ? Future.succeededFuture() : syncPool.close();
  }

  private BoundedChannel<ListenerInbox> listener(int i) {
    return listeners.computeIfAbsent(i, x -> channels.open("conn-worker->listener", Addresses.listener(x)));
  }

  private void write(long connId, ConnState c, byte[] message) {
    listener(c.listener).sendOwed(ListenerInbox.Write.of(connId, message));
  }

  private void handle(ConnWorkerInbox msg) {
    if (msg instanceof ConnWorkerInbox.Parse p) {
      ConnState c = conns.get(p.connId());
      if (c != null) {
        parse(p.connId(), c, p.message());
      }
      return;
    }
    if (msg instanceof ConnWorkerInbox.BadFrame b) {
      ConnState c = conns.get(b.connId());
      if (c != null) {
        write(b.connId(), c, RelayMessages.notice(b.notice()));
        if (b.closeCode() > 0) {
          listener(c.listener).sendOwed(new ListenerInbox.Close(b.connId(), b.closeCode(), b.notice()));
        }
      }
      return;
    }
    if (msg instanceof ConnWorkerInbox.Attach a) {
      ConnState c = new ConnState(a.tenant(), a.listener(), a.relayUrl());
      conns.put(a.connId(), c);
      if (limits.authRequired()) {
        challenge(a.connId(), c);
      }
      return;
    }
    if (msg instanceof ConnWorkerInbox.Detach d) {
      dropWaitingReads(conns.remove(d.connId()));
      syncs.detach(d.connId());
      return;
    }
    if (msg instanceof ConnWorkerInbox.Stalled st) {
      ConnState c = conns.get(st.connId());
      if (c != null) {
        c.stalled = st.stalled();
        if (c.stalled) {
          releaseHeldCredits(c);
        }
        sendWaitingReads(c);
      }
      return;
    }
    if (msg instanceof ConnWorkerInbox.SyncItemsRead r) {
      syncs.itemsRead(r.connId(), r.subId(), r.session(), r.items(), r.error(), System.currentTimeMillis());
      return;
    }
    if (msg instanceof ConnWorkerInbox.Live l) {
      live(l);
      return;
    }
    long connId = connIdOf(msg);
    ConnState c = conns.get(connId);
    if (c == null) {
      return;
    }
    if (msg instanceof ConnWorkerInbox.History || msg instanceof ConnWorkerInbox.Counted
        || msg instanceof ConnWorkerInbox.Refused || msg instanceof ConnWorkerInbox.ReadDropped) {
      readAnswered(c);
    }
    if (msg instanceof ConnWorkerInbox.Ok o) {
      write(connId, c, RelayMessages.ok(o.eventId(), o.accepted(), o.message()));
    } else if (msg instanceof ConnWorkerInbox.History h) {
      byte[] prefix = c.subs.get(h.subId());
      if (prefix == null) {
        prefix = RelayMessages.eventPrefix(h.subId()); // closed meanwhile; the answer still goes out
      }
      int n = h.events().size() + 1 + h.heldLive().size();
      byte[][] heads = new byte[n][];
      byte[][] events = new byte[n][];
      int i = 0;
      for (StoredEvent e : h.events()) {
        heads[i] = prefix;
        events[i++] = e.json();
      }
      heads[i++] = RelayMessages.eose(h.subId());
      for (byte[] json : h.heldLive()) {
        heads[i] = prefix;
        events[i++] = json;
      }
      listener(c.listener).sendOwed(new ListenerInbox.Write(connId, heads, events));
    } else if (msg instanceof ConnWorkerInbox.Authenticated a) {
      if (a.ok()) {
        c.authedPubkey = a.pubkey();
      }
      write(connId, c, RelayMessages.ok(a.eventId(), a.ok(), a.message()));
    } else if (msg instanceof ConnWorkerInbox.Counted n) {
      write(connId, c, RelayMessages.count(n.subId(), n.count()));
    } else if (msg instanceof ConnWorkerInbox.Refused r) {
      ended(connId, c, r.subId(), r.message());
    } else if (msg instanceof ConnWorkerInbox.Ended e) {
      ended(connId, c, e.subId(), e.message());
    }
  }

  /** CLOSED: the subscription is gone, unless a newer REQ with its id still waits to be sent. */
  private void ended(long connId, ConnState c, String subId, String message) {
    if (!waitingReq(c, subId)) {
      c.subs.remove(subId);
    }
    write(connId, c, RelayMessages.closed(subId, message));
  }

  /**
   * One live event for some of this worker's connections: one message per listener, each
   * connection getting the event bytes behind its subscriptions' prefixes (shared, not copied).
   */
  private void live(ConnWorkerInbox.Live l) {
    Map<Integer, LiveOut> byListener = new HashMap<>(4);
    for (SubscriptionRegistry.Match m : l.matches()) {
      ConnState c = conns.get(m.connId());
      if (c == null) {
        continue;
      }
      LiveOut out = byListener.get(c.listener);
      if (out == null) {
        out = new LiveOut(l.matches().size());
        byListener.put(c.listener, out);
      }
      for (String subId : m.live()) {
        byte[] prefix = c.subs.get(subId);
        if (prefix != null) {
          out.add(m.connId(), prefix);
        }
      }
    }
    byListener.forEach((listener, out) -> {
      if (out.size > 0) {
        listener(listener).sendOwed(new ListenerInbox.Deliver(l.event(), out.exactConns(), out.exactHeads()));
      }
    });
  }

  /** The connections and prefixes one listener gets for one live event. */
  private static final class LiveOut {
    long[] conns;
    byte[][] heads;
    int size;

    LiveOut(int hint) {
      conns = new long[Math.max(2, hint)];
      heads = new byte[conns.length][];
    }

    /** The arrays cut to size; as they are when full (one listener and every match live: the usual case). */
    long[] exactConns() {
      return size == conns.length ? conns : Arrays.copyOf(conns, size);
    }

    byte[][] exactHeads() {
      return size == heads.length ? heads : Arrays.copyOf(heads, size);
    }

    void add(long conn, byte[] head) {
      if (size == conns.length) {
        conns = Arrays.copyOf(conns, size * 2);
        heads = Arrays.copyOf(heads, size * 2);
      }
      conns[size] = conn;
      heads[size++] = head;
    }
  }

  private static long connIdOf(ConnWorkerInbox msg) {
    if (msg instanceof ConnWorkerInbox.Ok o) {
      return o.connId();
    } else if (msg instanceof ConnWorkerInbox.History h) {
      return h.connId();
    } else if (msg instanceof ConnWorkerInbox.Counted n) {
      return n.connId();
    } else if (msg instanceof ConnWorkerInbox.Authenticated a) {
      return a.connId();
    } else if (msg instanceof ConnWorkerInbox.Refused r) {
      return r.connId();
    } else if (msg instanceof ConnWorkerInbox.Ended e) {
      return e.connId();
    } else if (msg instanceof ConnWorkerInbox.ReadDropped d) {
      return d.connId();
    }
    throw new IllegalStateException("unexpected conn-worker message " + msg);
  }

  private void parse(long connId, ConnState c, byte[] text) {
    if (text.length > limits.maxMessageLength()) {
      write(connId, c, RelayMessages.notice("invalid: message is longer than " + limits.maxMessageLength() + " bytes"));
      listener(c.listener).sendOwed(new ListenerInbox.Close(connId, (short) 1009, "message too big"));
      return;
    }
    ClientMessage m;
    try {
      m = ClientMessageParser.parse(text, limits.maxSubidLength(), limits.maxFilters());
    } catch (InvalidMessageException e) {
      if (e.eventId() != null) {
        write(connId, c, RelayMessages.ok(e.eventId(), false, e.getMessage()));
      } else if (e.subId() != null && e.negentropy()) {
        write(connId, c, RelayMessages.negErr(e.subId(), e.getMessage()));
      } else if (e.subId() != null) {
        write(connId, c, RelayMessages.closed(e.subId(), e.getMessage()));
      } else {
        write(connId, c, RelayMessages.notice(e.getMessage()));
      }
      return;
    }
    if (m instanceof ClientMessage.EventMessage em) {
      publish(connId, c, em.event());
    } else if (m instanceof ClientMessage.ReqMessage req) {
      subscribe(connId, c, req.subId(), req.filters(), false);
    } else if (m instanceof ClientMessage.CountMessage cm) {
      subscribe(connId, c, cm.subId(), cm.filters(), true);
    } else if (m instanceof ClientMessage.CloseMessage close) {
      if (c.readsWaiting != null) {
        c.readsWaiting.removeIf(w -> w.isReq(close.subId()));
      }
      if (c.subs.remove(close.subId()) != null) {
        toManager.send(new NetworkInbox.Unsubscribe(connId, close.subId()), inbox);
      }
    } else if (m instanceof ClientMessage.AuthMessage auth) {
      authenticate(connId, c, auth.event());
    } else if (m instanceof ClientMessage.NegOpenMessage open) {
      syncOpen(connId, c, open);
    } else if (m instanceof ClientMessage.NegMsgMessage msg) {
      syncs.message(connId, msg.subId(), msg.message(), System.currentTimeMillis());
    } else if (m instanceof ClientMessage.NegCloseMessage close) {
      syncs.close(connId, close.subId());
    }
  }

  /** NIP-77 NEG-OPEN: a read, so NIP-42 applies as to a REQ; the items are read by database-engine. */
  private void syncOpen(long connId, ConnState c, ClientMessage.NegOpenMessage open) {
    if (mustAuthenticate(connId, c)) {
      write(connId, c, RelayMessages.negErr(open.subId(), "auth-required: this relay requires NIP-42 authentication"));
      return;
    }
    long session = syncs.open(connId, c.tenant, open.subId(), open.message(), System.currentTimeMillis());
    if (session > 0) {
      toManager.send(new NetworkInbox.SyncOpen(connId, open.subId(), session, open.filter()), inbox);
    }
  }

  /** Sends this connection its NIP-42 challenge, once. */
  private void challenge(long connId, ConnState c) {
    if (c.challenge == null) {
      byte[] r = new byte[16];
      challenges.nextBytes(r); // unpredictable: an AUTH cannot be signed before the challenge is seen
      c.challenge = Hex.encode(r);
      write(connId, c, RelayMessages.auth(c.challenge));
    }
  }

  /** NIP-42: the AUTH event must answer our challenge, be recent, name this relay and be signed. */
  private void authenticate(long connId, ConnState c, NostrEvent e) {
    String reason = null;
    if (e.kind() != Kinds.AUTH) {
      reason = "invalid: AUTH event must be kind 22242";
    } else if (c.challenge == null || !c.challenge.equals(EventTags.first(e, "challenge"))) {
      reason = "invalid: AUTH event does not answer this connection's challenge";
    } else if (Math.abs(System.currentTimeMillis() / 1000 - e.createdAt()) > 600) {
      reason = "invalid: AUTH event created_at must be within 10 minutes of now";
    } else if (EventTags.first(e, "relay") == null) {
      reason = "invalid: AUTH event has no relay tag";
    } else if (c.relayUrl == null || !c.relayUrl.equals(RelayUrl.normalize(EventTags.first(e, "relay")))) {
      // NIP-42: an AUTH made for another relay (or tenant) must not unlock this one
      reason = "invalid: AUTH event's relay tag names another relay (this is " + c.relayUrl + ")";
    }
    if (reason != null) {
      write(connId, c, RelayMessages.ok(e.id(), false, reason));
      challenge(connId, c);
      return;
    }
    toManager.send(new NetworkInbox.Authenticate(connId, e), inbox);
  }

  private boolean mustAuthenticate(long connId, ConnState c) {
    if (limits.authRequired() && c.authedPubkey == null) {
      challenge(connId, c);
      return true;
    }
    return false;
  }

  private void publish(long connId, ConnState c, NostrEvent e) {
    if (mustAuthenticate(connId, c)) {
      write(connId, c, RelayMessages.ok(e.id(), false, "auth-required: this relay requires NIP-42 authentication"));
      return;
    }
    if (EventTags.isProtected(e) && !e.pubkey().equals(c.authedPubkey)) {
      write(connId, c, RelayMessages.ok(e.id(), false, c.authedPubkey == null
          ? "auth-required: this event may only be published by its authenticated author"
          : "restricted: this event may only be published by its author"));
      challenge(connId, c);
      return;
    }
    if (e.bytes().contentLength() > limits.maxContentLength()) {
      write(connId, c, RelayMessages.ok(e.id(), false,
          "invalid: content is longer than " + limits.maxContentLength() + " bytes"));
      return;
    }
    if (e.tags().size() > limits.maxEventTags()) {
      write(connId, c, RelayMessages.ok(e.id(), false, "invalid: more than " + limits.maxEventTags() + " tags"));
      return;
    }
    toManager.send(new NetworkInbox.Publish(connId, e, c.authedPubkey), inbox);
  }

  private void subscribe(long connId, ConnState c, String subId, List<Filter> filters, boolean count) {
    if (mustAuthenticate(connId, c)) {
      write(connId, c, RelayMessages.closed(subId, "auth-required: this relay requires NIP-42 authentication"));
      return;
    }
    if (!count) {
      if (!c.subs.containsKey(subId) && c.subs.size() >= limits.maxSubscriptions()) {
        write(connId, c, RelayMessages.closed(subId,
            "rate-limited: too many open subscriptions (max " + limits.maxSubscriptions() + "), close one first"));
        return;
      }
      c.subs.computeIfAbsent(subId, RelayMessages::eventPrefix);
    }
    read(connId, c, new NetworkInbox.Subscribe(connId, subId, filters, count));
  }

  /**
   * Sends a REQ's or COUNT's read on when the connection may have one more on its way ({@link #mayRead}),
   * else it waits here for one of them to be answered. A client that sends hundreds of
   * REQs at once then has a few in the store's turns at a time (dev.cairn.store.ReadTurns), and the rest
   * cost nobody else anything: neither a place in a queue nor a credit of the channels every connection
   * shares (were they held there, every socket would pause). Only a flood of COUNTs, which nothing else
   * bounds, comes to hold credits.
   */
  private void read(long connId, ConnState c, NetworkInbox.Subscribe s) {
    if (mayRead(c)) {
      c.readsOut++;
      toManager.send(s, inbox);
      return;
    }
    if (c.readsWaiting == null) {
      c.readsWaiting = new ArrayDeque<>(4);
    }
    if (!s.count()) {
      // NIP-01: a REQ replaces the one with its id, at once: the older one ends now (its answer, if still
      // to come, is dropped), and at most limits.max_subscriptions REQs wait
      c.readsWaiting.removeIf(w -> w.isReq(s.subId()));
      toManager.send(new NetworkInbox.Unsubscribe(connId, s.subId()), inbox);
    } else if (!c.stalled && c.readsWaiting.stream().filter(w -> w.read().count()).count() >= limits.maxSubscriptions()) {
      // COUNTs have no such bound: past as many as REQs may wait, each keeps its frame's credit, so a
      // flood of them pauses the sockets that feed this worker, as any full channel does (not while the
      // client is stalled: its input is paused then, and its reads do not go on to give the credits back)
      c.readsWaiting.add(new WaitingRead(s, inbox.hold()));
      return;
    }
    c.readsWaiting.add(new WaitingRead(s, null));
  }

  /** One of the connection's reads was answered: the next waiting one may go on. */
  private void readAnswered(ConnState c) {
    c.readsOut--;
    sendWaitingReads(c);
  }

  /**
   * A read goes on while fewer than {@code limits.queries_per_connection} are on their way and the
   * client reads what it is sent. One that does not (its socket full while answers still came: the
   * listener's {@code Stalled}) gets no more reads run until it reads again: what it queued is its
   * answers so far, not every answer it asked for (up to {@code limits.max_outbound_bytes} each, were
   * they all read, which twenty such clients turned into 1.8 GB), and the store spends no turns on it.
   */
  private boolean mayRead(ConnState c) {
    return !c.stalled && c.readsOut < limits.queriesPerConnection();
  }

  /** Sends on the waiting reads the connection may have on their way now, in order. */
  private void sendWaitingReads(ConnState c) {
    while (c.readsWaiting != null && !c.readsWaiting.isEmpty() && mayRead(c)) {
      WaitingRead next = c.readsWaiting.poll();
      c.readsOut++;
      if (next.release() != null) {
        toManager.send(next.read(), next.release());
      } else {
        toManager.send(next.read(), inbox);
      }
    }
  }

  /** A read waiting on its connection; {@code release} gives back its frame's credit (null: none kept). */
  private record WaitingRead(NetworkInbox.Subscribe read, Runnable release) {
    boolean isReq(String subId) {
      return !read.count() && read.subId().equals(subId);
    }
  }

  /**
   * The client stalled: the credits its waiting COUNTs keep go back now, for its reads will not go on until
   * it reads again, and those credits are this worker's inbox, which every connection of the worker shares
   * (were they kept, a few stalled clients would hold every other client's messages for up to
   * {@code limits.slow_consumer_timeout}). Its input is paused meanwhile, which bounds what may still wait.
   */
  private static void releaseHeldCredits(ConnState c) {
    if (c.readsWaiting != null && c.readsWaiting.stream().anyMatch(w -> w.release() != null)) {
      ArrayDeque<WaitingRead> released = new ArrayDeque<>(c.readsWaiting.size());
      for (WaitingRead w : c.readsWaiting) {
        if (w.release() != null) {
          w.release().run();
        }
        released.add(new WaitingRead(w.read(), null));
      }
      c.readsWaiting = released;
    }
  }

  /** The connection is gone: the credits its waiting reads kept go back. */
  private static void dropWaitingReads(ConnState c) {
    if (c != null && c.readsWaiting != null) {
      c.readsWaiting.forEach(w -> {
        if (w.release() != null) {
          w.release().run();
        }
      });
      c.readsWaiting = null;
    }
  }

  private static boolean waitingReq(ConnState c, String subId) {
    return c.readsWaiting != null && c.readsWaiting.stream().anyMatch(w -> w.isReq(subId));
  }
}
