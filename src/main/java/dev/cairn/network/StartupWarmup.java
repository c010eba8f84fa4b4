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
import java.lang.management.CompilationMXBean;
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
 * <p>With a tenant of its own (the embedded SQLite store: a throwaway tenant whose store lives in a
 * temporary directory and is deleted afterwards) most of its events are notes and reactions that are
 * stored like any client's, so the stored-event path through the tree (root's persist round trip, the
 * group commit, the dispatch after it) is compiled too: measured, that path's first events were the
 * p99 of a fresh relay's first seconds. Without one (MySQL) it publishes only ephemeral events (kind
 * {@link #KIND}) to the default tenant, which are never stored. Either way nothing reaches a served
 * tenant's store, outbox or change feed, and no client sees its events (none is connected yet). Best
 * effort: a policy that refuses the events, a socket the relay closes or the time running out ends the
 * warm-up early, and the relay starts anyway.
 */
final class StartupWarmup {
  /** An ephemeral kind (NIP-01: 20000–29999, relayed, never stored) with no meaning of its own. */
  static final int KIND = 29_999;
  private static final String TOPIC = "cairn-warmup";
  private static final String RELAY_HINT = "wss://relay.example.com";
  static final int SUBSCRIBERS = 50;
  static final int PUBLISHERS = 4;
  /** Its events' authors: author lists in filters, per-author state in policy. */
  static final int AUTHORS = 8;
  /**
   * A short session (connect, REQ with stored history, COUNT, CLOSE, disconnect) starts this often while
   * events flow, at most {@link #SESSIONS_OPEN} at once: code compiled for the event stream alone had
   * never seen those messages and was thrown away (deoptimized) when the first clients brought them.
   */
  static final long SESSION_EVERY_MILLIS = 50;
  static final int SESSIONS_OPEN = 4;
  static final int EVENTS_PER_SECOND = 1_000;
  /**
   * The settling rounds, once the first round is over and the compilers are idle: its subscribers are
   * closed (the fan-out is compiled by then), and each round publishes this many events at a client's pace
   * ({@link #PACED_PER_SECOND}: the writer commits them one or a few at a time), then as many again as
   * fast as the sockets take them (commits of many). The first round is 50 deliveries per event, and
   * compiling the fan-out keeps C2's queue long all through it: HotSpot raises its tier-4 thresholds with
   * that queue and compiles new methods at C1's non-profiling tier meanwhile, so what runs once per event
   * or once per commit (the signature check, root, the policy, the writer's per-commit code, Netty's
   * per-socket reads) was still in C1 code when the round ended (measured: C2 took 38 µs per event in a
   * fresh relay's first 20 s at 50 × 20 and 82-91 at 500 × 2, against ~5 once warm). With the queue short
   * they cross the thresholds here, a counter check every 1,024 calls (2,048 at tier 2), so the rounds go
   * on until one leaves the compilers quiet ({@link #QUIET_COMPILE_MILLIS}), starting for twice the first
   * round's duration at most, and {@link #MAX_SETTLING_ROUNDS} at most (measured on 2 cores: 3-4 rounds,
   * 3-4 s, and C2 in a fresh relay's first 20 s at about half of what it took without them).
   */
  static final int SETTLING_ROUND_EVENTS = 1_000;
  static final int PACED_PER_SECOND = 2_000;
  /** The burst half of a settling round: "as fast as the sockets take them", in the round's terms. */
  static final int BURST_PER_SECOND = 50_000;
  /** A settling round after which the compilers spent less than this (all compilers, ms) ends the warm-up. */
  static final long QUIET_COMPILE_MILLIS = 150;
  static final int MAX_SETTLING_ROUNDS = 16;
  /** The settling rounds start for this many times the first round's duration at most. */
  static final int SETTLING_TIME_FACTOR = 2;
  private static final long TICK_MILLIS = 10;
  /** How often the compilers are looked at once the traffic is over. */
  private static final long POLL_MILLIS = 50;
  /** Time for the sockets to open, and after the last event for the OKs and deliveries to arrive. */
  static final long SETTLE_MILLIS = 5_000;

  /** What the warm-up did. {@code stopped} is empty when it ran to the end. */
  record Report(int published, String tenant, int accepted, long deliveries, long expected, int sessions,
      int settlingRounds, long millis, long compilerMillis, String stopped) {
    @Override
    public String toString() {
      String what = tenant != null
          ? " events published to its own tenant " + tenant + " (notes and reactions stored, a fifth ephemeral; "
          : " ephemeral events published (";
      return published + what + accepted + " accepted), " + deliveries + " of "
          + expected + " deliveries to " + SUBSCRIBERS + " subscribers and " + sessions + " short sessions (REQ,"
          + " COUNT, CLOSE), the first round and " + settlingRounds + " settling round(s), in " + millis
          + " ms, then " + compilerMillis + " ms until the JIT compilers were idle"
          + (stopped.isEmpty() ? "" : "; stopped early: " + stopped);
    }
  }

  private final Vertx vertx;
  private final int port;
  private final boolean tls;
  private final Duration duration;
  /** The warm-up's own tenant (its events stored), or null: the default tenant, ephemeral events only. */
  private final String tenant;
  private final List<WebSocket> subscribers = new ArrayList<>();
  private final List<WebSocket> publishers = new ArrayList<>();
  private final Promise<Report> done = Promise.promise();
  private WebSocketClient client;
  private List<NostrEvent> events;
  private long startedAt;
  private long publishingSince;
  /** The current round: its rate, the index of its first event and the index after its last. */
  private int perSecond;
  private int roundStart;
  private int roundEnd;
  private int sent;
  private int oks;
  private int accepted;
  private long deliveries;
  private long ticker = -1;
  private long deadline = -1;
  private long sessionTimer = -1;
  private int sessionsOpen;
  private int sessions;
  /** Settling rounds started; what the compilers had spent (ms) when the current one started. */
  private int settlingRounds;
  private long settlingSince;
  private long compileMillisAtRound;
  /** Deliveries the subscribers are owed: fixed once they are closed for the settling rounds (-1 before). */
  private long deliveriesOwed = -1;
  /** The current round is a settling round's paced half: its burst half follows. */
  private boolean burstNext;
  private boolean closing;

  private StartupWarmup(Vertx vertx, int port, boolean tls, Duration duration, String tenant) {
    this.vertx = vertx;
    this.port = port;
    this.tls = tls;
    this.duration = duration;
    this.tenant = tenant;
  }

  /**
   * Runs the warm-up against the listener on 127.0.0.1:{@code port}, for {@code tenant} (null: the default
   * tenant, ephemeral events only); never fails (see {@link Report}).
   */
  static Future<Report> run(Vertx vertx, int port, boolean tls, Duration duration, String tenant) {
    return new StartupWarmup(vertx, port, tls, duration, tenant).start();
  }

  private Future<Report> start() {
    startedAt = System.currentTimeMillis();
    client = vertx.createWebSocketClient(new WebSocketClientOptions()
        .setMaxConnections(SUBSCRIBERS + PUBLISHERS + SESSIONS_OPEN)
        // the relay's own listener, on loopback: its certificate is the one it serves to everyone
        .setSsl(tls).setTrustAll(true).setVerifyHost(false));
    // one bound for the traffic: signing, connecting, the first round and its deliveries' arrival, then the
    // settling rounds' time, the last of which may start just before it ends and wait for the compilers
    long bound = (1 + SETTLING_TIME_FACTOR) * duration.toMillis() + 2_000 + 4 * SETTLE_MILLIS;
    deadline = vertx.setTimer(bound, id -> finish("time ran out"));
    int first = (int) Math.max(1, duration.toMillis() * EVENTS_PER_SECOND / 1000);
    // Signing is CPU work: on a worker, not on this node's event loop.
    vertx.executeBlocking(() -> sign(first, tenant != null), false)
        .compose(signed -> {
          events = new ArrayList<>(signed);
          return connectAll();
        })
        .onSuccess(x -> {
          sessionTimer = vertx.setPeriodic(SESSION_EVERY_MILLIS, id -> session());
          round(first, EVENTS_PER_SECOND);
        })
        .onFailure(t -> finish("its connections could not be set up: " + t.getMessage()));
    return done.future();
  }

  /**
   * The events, each matched by every subscriber's filters: stored, in ten, six notes (tags of the usual
   * shapes: none, a topic, mentions with and without a relay hint, a reply with its NIP-10 marker, a
   * contact-list-like run of {@code p} tags), two reactions and two ephemeral events; ephemeral only
   * (the same tags) without a tenant of its own.
   */
  private static List<NostrEvent> sign(int count, boolean stored) {
    List<EventSigner> authors = new ArrayList<>();
    List<List<String>> mentions = new ArrayList<>();
    for (int a = 0; a < AUTHORS; a++) {
      authors.add(EventSigner.random());
      mentions.add(List.of("p", authors.get(a).pubkey()));
    }
    long now = System.currentTimeMillis() / 1000;
    List<String> topic = List.of("t", TOPIC);
    List<NostrEvent> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      EventSigner by = authors.get(i % AUTHORS);
      List<String> mention = mentions.get((i + 1) % AUTHORS);
      int shape = i % 10;
      // tags of two, three and four elements (a relay hint, a NIP-10 marker), as clients send them: code
      // compiled for one shape of tag list is thrown away when the first client's other shape comes
      List<List<String>> tags = switch (shape % 5) {
        case 0 -> List.of(topic, mention);
        case 1 -> List.of();
        case 2 -> mentions;
        case 3 -> List.of(topic, List.of("p", mention.get(1), RELAY_HINT));
        default -> i >= 4 // a reply
            ? List.of(List.of("e", out.get(i - 4).id(), RELAY_HINT, "reply"), mention)
            : List.of(mention);
      };
      if (!stored || shape >= 8) {
        out.add(by.sign(now, KIND, tags, SampleText.of(i)));
      } else if (shape >= 6) { // on notes 0 and 1 of these ten: no two reactions alike (a duplicate is not delivered)
        out.add(by.sign(now, 7, List.of(List.of("e", out.get(i - 6).id()), mention), "+"));
      } else {
        out.add(by.sign(now, 1, tags, SampleText.of(i)));
      }
    }
    return out;
  }

  /** The first {@code n} authors of its events, as a filter's {@code authors} value. */
  private String authors(int n) {
    return events.stream().limit(n).map(e -> '"' + e.pubkey() + '"')
        .collect(java.util.stream.Collectors.joining(",", "[", "]"));
  }

  private Future<?> connectAll() {
    // the shapes clients use for live feeds, each REQ matching every warm-up event; "since" keeps a
    // served tenant's stored events out of their history (without a tenant of its own)
    String since = "\"since\":" + (events.get(0).createdAt() - 60);
    String[] filters = {
        "{\"kinds\":[1,7," + KIND + "]," + since + "}",
        "{\"kinds\":[1,7]," + since + "},{\"kinds\":[" + KIND + "]," + since + "}",
        // half the authors: an event whose author no filter names is the common case of a live relay
        "{\"authors\":" + authors(AUTHORS / 2) + "," + since + "},{\"kinds\":[1,7," + KIND + "]," + since + "}",
        "{\"#t\":[\"" + TOPIC + "\"],\"kinds\":[1]},{\"#p\":[\"" + events.get(0).pubkey() + "\"]},{" + since + "}"};
    List<Future<?>> ready = new ArrayList<>();
    for (int i = 0; i < SUBSCRIBERS; i++) {
      String filter = filters[i % filters.length];
      ready.add(client.connect(port, "127.0.0.1", path()).compose(ws -> {
        subscribers.add(ws);
        Promise<Void> eose = Promise.promise();
        ws.textMessageHandler(m -> onSubscriberMessage(m, eose));
        ws.closeHandler(v -> finish("the relay closed a subscriber"));
        ws.writeTextMessage("[\"REQ\",\"warmup\"," + filter + "]");
        return eose.future();
      }));
    }
    for (int i = 0; i < PUBLISHERS; i++) {
      ready.add(client.connect(port, "127.0.0.1", path()).onSuccess(ws -> {
        publishers.add(ws);
        ws.textMessageHandler(this::onPublisherMessage);
        ws.closeHandler(v -> finish("the relay closed a publisher"));
      }));
    }
    return Future.all(ready);
  }

  /** The path of the tenant it writes to. */
  private String path() {
    return tenant != null ? "/t/" + tenant : "/";
  }

  /**
   * One short session beside the event stream: a REQ whose history holds stored warm-up events, a COUNT,
   * a CLOSE, a disconnect. Best effort: a session that fails is only not counted.
   */
  private void session() {
    if (sessionsOpen >= SESSIONS_OPEN || roundEnd < 0 || closing || done.future().isComplete()) {
      return;
    }
    sessionsOpen++;
    String filter = "{\"authors\":" + authors(AUTHORS) + ",\"kinds\":[1],\"limit\":20}";
    client.connect(port, "127.0.0.1", path()).onComplete(ar -> {
      if (ar.failed()) {
        sessionsOpen--;
        return;
      }
      WebSocket ws = ar.result();
      ws.closeHandler(v -> sessionsOpen--);
      ws.textMessageHandler(m -> {
        if (m.startsWith("[\"EOSE\"")) {
          ws.writeTextMessage("[\"COUNT\",\"n\",{\"authors\":" + authors(AUTHORS) + ",\"kinds\":[7]}]");
        } else if (m.startsWith("[\"COUNT\"") || m.startsWith("[\"CLOSED\"")) {
          sessions++;
          ws.writeTextMessage("[\"CLOSE\",\"s\"]");
          ws.close();
        }
      });
      ws.writeTextMessage("[\"REQ\",\"s\"," + filter + "]");
    });
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
    // open loop at the round's rate from its first tick, like clients that do not wait for OKs
    long due = Math.min(roundEnd, roundStart + (System.currentTimeMillis() - publishingSince) * perSecond / 1000 + 1);
    while (sent < due) {
      WebSocket ws = publishers.get(sent % publishers.size());
      if (ws.writeQueueFull()) {
        return; // the relay is behind: this tick's rest waits for the next
      }
      ws.writeTextMessage("[\"EVENT\"," + events.get(sent).jsonText() + "]");
      sent++;
    }
    if (sent == roundEnd) {
      vertx.cancelTimer(ticker);
    }
  }

  /** Publishes the next {@code n} events at {@code rate} per second. */
  private void round(int n, int rate) {
    perSecond = rate;
    roundStart = sent;
    roundEnd = sent + n;
    publishingSince = System.currentTimeMillis();
    ticker = vertx.setPeriodic(TICK_MILLIS, id -> publishTick());
  }

  /**
   * After a round's last OK and delivery: a settling round's burst half after its paced half; else, once
   * the compilers are idle, the next settling round, or the end when the last one left them quiet or the
   * settling rounds' time is up.
   */
  private void finishWhenComplete() {
    if (sent != roundEnd || oks != sent || deliveries < deliveriesOwed() || closing) {
      return;
    }
    if (burstNext) {
      burstNext = false;
      round(SETTLING_ROUND_EVENTS, BURST_PER_SECOND);
      return;
    }
    roundEnd = -1; // between rounds
    compilerIdle().onComplete(x -> {
      if (done.future().isComplete() || closing) {
        return;
      }
      boolean quiet = settlingRounds > 0 && compileMillis() - compileMillisAtRound < QUIET_COMPILE_MILLIS;
      boolean timeUp = settlingRounds > 0
          && System.currentTimeMillis() - settlingSince >= SETTLING_TIME_FACTOR * duration.toMillis();
      if (quiet || timeUp || settlingRounds == MAX_SETTLING_ROUNDS) {
        finish("");
      } else {
        settlingRound();
      }
    });
  }

  /** What the subscribers are owed: every accepted event, until they are closed for the settling rounds. */
  private long deliveriesOwed() {
    return deliveriesOwed >= 0 ? deliveriesOwed : (long) accepted * SUBSCRIBERS;
  }

  /**
   * Signs a settling round's events (on a worker), then publishes them: the paced half first. The first
   * one closes the subscribers, whose deliveries are all in.
   */
  private void settlingRound() {
    if (settlingRounds++ == 0) {
      settlingSince = System.currentTimeMillis();
      deliveriesOwed = (long) accepted * SUBSCRIBERS;
      for (WebSocket ws : subscribers) {
        ws.closeHandler(null);
        ws.close();
      }
      subscribers.clear();
    }
    compileMillisAtRound = compileMillis();
    vertx.executeBlocking(() -> sign(2 * SETTLING_ROUND_EVENTS, tenant != null), false).onComplete(ar -> {
      if (ar.failed()) {
        finish("its events could not be signed: " + ar.cause());
      } else if (!done.future().isComplete() && !closing) {
        events.addAll(ar.result());
        burstNext = true;
        round(SETTLING_ROUND_EVENTS, PACED_PER_SECOND);
      }
    });
  }

  /** What the JIT compilers have spent so far (ms, all of them); 0 where the JVM does not tell. */
  private static long compileMillis() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
  }

  /** Stops publishing, closes every socket (the relay has forgotten them when this completes), reports. */
  private void finish(String stopped) {
    if (done.future().isComplete() || closing) {
      return;
    }
    closing = true;
    vertx.cancelTimer(ticker);
    vertx.cancelTimer(sessionTimer);
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
        .onComplete(x -> done.complete(new Report(sent, tenant, accepted, deliveries, deliveriesOwed(),
            sessions, settlingRounds, trafficMillis, System.currentTimeMillis() - startedAt - trafficMillis, stopped)));
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
