package dev.cairn.network;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.nostr.SampleText;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.json.JsonArray;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.util.ArrayList;
import java.util.List;

/**
 * The start-up warm-up (docs/decisions/0011-startup-warmup.md): before the listeners open, the relay
 * talks to itself over a private loopback listener for a few seconds, so that the JIT has compiled the
 * paths of a live fan-out — frames in, parse, signature check, policy, matching, frames out to many
 * sockets — before the first client's events take them. A fresh JVM otherwise spends its first
 * seconds of traffic interpreting and compiling them (50 events/s to 200 subscribers: p99 80–130 ms
 * in the first 10 s, 10–14 ms once warm).
 *
 * <p>Only ephemeral events (kind {@link #KIND}) of a throwaway key, which are never stored: nothing
 * reaches the store, the outbox or the change feed, and no client sees them (none is connected yet).
 * Best effort: a policy that refuses the events, a socket the relay closes or the time running out ends
 * the warm-up early, and the relay starts anyway.
 */
final class StartupWarmup {
  /** An ephemeral kind (NIP-01: 20000–29999, relayed, never stored) with no meaning of its own. */
  static final int KIND = 29_999;
  static final int SUBSCRIBERS = 50;
  static final int PUBLISHERS = 4;
  static final int EVENTS_PER_SECOND = 1_000;
  private static final long TICK_MILLIS = 10;
  /** How often the compilers are looked at once the traffic is over. */
  private static final long POLL_MILLIS = 50;
  /** Time for the sockets to open, and after the last event for the OKs and deliveries to arrive. */
  static final long SETTLE_MILLIS = 5_000;

  /** What the warm-up did. {@code stopped} is empty when it ran to the end. */
  record Report(int published, int accepted, long deliveries, long expected, long millis, long compilerMillis,
      String stopped) {
    @Override
    public String toString() {
      return published + " ephemeral events published (" + accepted + " accepted), " + deliveries + " of "
          + expected + " deliveries to " + SUBSCRIBERS + " subscribers in " + millis + " ms, then "
          + compilerMillis + " ms until the JIT compilers were idle"
          + (stopped.isEmpty() ? "" : "; stopped early: " + stopped);
    }
  }

  private final Vertx vertx;
  private final int port;
  private final boolean tls;
  private final Duration duration;
  private final List<WebSocket> subscribers = new ArrayList<>();
  private final List<WebSocket> publishers = new ArrayList<>();
  private final Promise<Report> done = Promise.promise();
  private WebSocketClient client;
  private List<NostrEvent> events;
  private long startedAt;
  private long publishingSince;
  private int sent;
  private int oks;
  private int accepted;
  private long deliveries;
  private long ticker = -1;
  private long deadline = -1;
  private boolean closing;

  private StartupWarmup(Vertx vertx, int port, boolean tls, Duration duration) {
    this.vertx = vertx;
    this.port = port;
    this.tls = tls;
    this.duration = duration;
  }

  /** Runs the warm-up against the listener on 127.0.0.1:{@code port}; never fails (see {@link Report}). */
  static Future<Report> run(Vertx vertx, int port, boolean tls, Duration duration) {
    return new StartupWarmup(vertx, port, tls, duration).start();
  }

  private Future<Report> start() {
    startedAt = System.currentTimeMillis();
    client = vertx.createWebSocketClient(new WebSocketClientOptions()
        .setMaxConnections(SUBSCRIBERS + PUBLISHERS)
        // the relay's own listener, on loopback: its certificate is the one it serves to everyone
        .setSsl(tls).setTrustAll(true).setVerifyHost(false));
    // one bound for the traffic: signing, connecting, publishing and the deliveries' arrival
    deadline = vertx.setTimer(duration.toMillis() + 2 * SETTLE_MILLIS, id -> finish("time ran out"));
    int count = (int) Math.max(1, duration.toMillis() * EVENTS_PER_SECOND / 1000);
    // Signing is CPU work: on a worker, not on this node's event loop.
    vertx.executeBlocking(() -> sign(count), false)
        .compose(signed -> {
          events = signed;
          return connectAll();
        })
        .onSuccess(x -> {
          publishingSince = System.currentTimeMillis();
          ticker = vertx.setPeriodic(TICK_MILLIS, id -> publishTick());
        })
        .onFailure(t -> finish("its connections could not be set up: " + t.getMessage()));
    return done.future();
  }

  private static List<NostrEvent> sign(int count) {
    EventSigner signer = EventSigner.random();
    long now = System.currentTimeMillis() / 1000;
    List<NostrEvent> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      out.add(signer.sign(now, KIND, List.of(List.of("t", "cairn-warmup"), List.of("p", signer.pubkey())),
          SampleText.of(i)));
    }
    return out;
  }

  private Future<?> connectAll() {
    // the shapes clients use for live feeds, each matching every warm-up event
    long since = events.get(0).createdAt() - 60;
    String[] filters = {
        "{\"kinds\":[1,7," + KIND + "],\"since\":" + since + "}",
        "{\"kinds\":[" + KIND + "]}",
        "{\"authors\":[\"" + events.get(0).pubkey() + "\"],\"since\":" + since + "}",
        "{\"#t\":[\"cairn-warmup\"],\"kinds\":[" + KIND + "]}"};
    List<Future<?>> ready = new ArrayList<>();
    for (int i = 0; i < SUBSCRIBERS; i++) {
      String filter = filters[i % filters.length];
      ready.add(client.connect(port, "127.0.0.1", "/").compose(ws -> {
        subscribers.add(ws);
        Promise<Void> eose = Promise.promise();
        ws.textMessageHandler(m -> onSubscriberMessage(m, eose));
        ws.closeHandler(v -> finish("the relay closed a subscriber"));
        ws.writeTextMessage("[\"REQ\",\"warmup\"," + filter + "]");
        return eose.future();
      }));
    }
    for (int i = 0; i < PUBLISHERS; i++) {
      ready.add(client.connect(port, "127.0.0.1", "/").onSuccess(ws -> {
        publishers.add(ws);
        ws.textMessageHandler(this::onPublisherMessage);
        ws.closeHandler(v -> finish("the relay closed a publisher"));
      }));
    }
    return Future.all(ready);
  }

  private void onSubscriberMessage(String m, Promise<Void> eose) {
    if (m.startsWith("[\"EVENT\"")) {
      if (eose.future().isComplete()) { // live: what a kinds filter finds stored comes before the EOSE
        deliveries++;
        finishWhenComplete();
      }
    } else if (m.startsWith("[\"EOSE\"")) {
      eose.tryComplete();
    } else if (m.startsWith("[\"CLOSED\"")) {
      eose.tryFail("subscription refused: " + m);
    }
  }

  private void onPublisherMessage(String m) {
    if (!m.startsWith("[\"OK\"")) {
      return;
    }
    oks++;
    JsonArray ok = new JsonArray(m);
    if (ok.getBoolean(2)) {
      accepted++;
      finishWhenComplete();
    } else {
      finish("the relay refused an event: " + ok.getString(3));
    }
  }

  private void publishTick() {
    if (done.future().isComplete()) {
      return;
    }
    // open loop at EVENTS_PER_SECOND from the first tick, like clients that do not wait for OKs
    long due = Math.min(events.size(), (System.currentTimeMillis() - publishingSince) * EVENTS_PER_SECOND / 1000 + 1);
    while (sent < due) {
      WebSocket ws = publishers.get(sent % publishers.size());
      if (ws.writeQueueFull()) {
        return; // the relay is behind: this tick's rest waits for the next
      }
      ws.writeTextMessage("[\"EVENT\"," + events.get(sent).jsonText() + "]");
      sent++;
    }
    if (sent == events.size()) {
      vertx.cancelTimer(ticker);
    }
  }

  private void finishWhenComplete() {
    if (sent == events.size() && oks == sent && deliveries >= (long) accepted * SUBSCRIBERS) {
      finish("");
    }
  }

  /** Stops publishing, closes every socket (the relay has forgotten them when this completes), reports. */
  private void finish(String stopped) {
    if (done.future().isComplete() || closing) {
      return;
    }
    closing = true;
    vertx.cancelTimer(ticker);
    vertx.cancelTimer(deadline);
    List<Future<?>> closed = new ArrayList<>();
    for (WebSocket ws : subscribers) {
      ws.closeHandler(null);
      closed.add(ws.close());
    }
    for (WebSocket ws : publishers) {
      ws.closeHandler(null);
      closed.add(ws.close());
    }
    long trafficMillis = System.currentTimeMillis() - startedAt;
    Future.join(closed).eventually(() -> client.close()).eventually(this::compilerIdle)
        // its garbage goes before the first client comes: with the heap free ratios JvmTuning sets, a
        // full collection also gives the heap it grew back (RSS 518 MB at the first client without it)
        .eventually(() -> vertx.executeBlocking(() -> {
          System.gc();
          return null;
        }, false))
        .onComplete(x -> done.complete(new Report(sent, accepted, deliveries, (long) accepted * SUBSCRIBERS,
            trafficMillis, System.currentTimeMillis() - startedAt - trafficMillis, stopped)));
  }

  /**
   * Completes once the JIT compilers are idle (nothing compiling, nothing queued: HotSpot's
   * {@code Compiler.queue} diagnostic command), at most {@link #SETTLE_MILLIS} from now. The traffic's
   * last seconds queue compiles of a second or more each; on 2 cores a C2 compiler still busy with them
   * when the listeners open takes a core from the first clients (measured: C2 busy for ~2 s after the
   * traffic, the first events' deliveries 150 ms late).
   */
  private Future<Void> compilerIdle() {
    Promise<Void> idle = Promise.promise();
    long giveUpAt = System.currentTimeMillis() + SETTLE_MILLIS;
    vertx.setPeriodic(POLL_MILLIS, id -> vertx.executeBlocking(StartupWarmup::compilersIdle, false)
        .onComplete(ar -> {
          if (ar.failed() || ar.result() || System.currentTimeMillis() >= giveUpAt) {
            vertx.cancelTimer(id);
            idle.tryComplete();
          }
        }));
    return idle.future();
  }

  /** True when no method is being compiled or waits to be; true as well where the JVM cannot tell. */
  static boolean compilersIdle() throws JMException {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    ObjectName commands = new ObjectName("com.sun.management:type=DiagnosticCommand");
    if (!server.isRegistered(commands)) {
      return true;
    }
    String queue = String.valueOf(server.invoke(commands, "compilerQueue", new Object[] {null},
        new String[] {String[].class.getName()}));
    // "Current compiles:" then one line per compile; then per compiler "... compile queue:" and "Empty"
    boolean current = false;
    String previous = "";
    for (String line : queue.split("\n")) {
      String l = line.strip();
      if (l.startsWith("Current compiles:")) {
        current = true;
      } else if (l.isEmpty()) {
        current = false;
      } else if (current) {
        return false; // a compile running
      } else if (previous.endsWith("compile queue:") && !l.equals("Empty")) {
        return false; // compiles waiting
      }
      previous = l;
    }
    return true;
  }
}
