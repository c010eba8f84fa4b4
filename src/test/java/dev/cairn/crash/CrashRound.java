package dev.cairn.crash;

import dev.cairn.feed.SseClient.Frame;
import dev.cairn.relay.RelayClient;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One round: start the packaged relay, put it under publish + REQ + SSE load, SIGKILL it at a moment
 * drawn from the round's seed, restart it on the same data directory, let the outbox drain, and
 * collect what the clients saw before ({@link Witness}) and what the relay shows after ({@link Recovery}).
 */
final class CrashRound {
  static final int PUBLISHERS = 4;
  /** The load must be real before the kill can come: at least this many OK'd events. */
  static final int MIN_ACCEPTED = 100;
  /** The kill comes up to this long after that. */
  static final int KILL_WINDOW_MS = 2500;
  private static final int DRAIN_WITHIN_S = 90;
  /** JetStream redelivers what the killed process had not acked only after the consumer's ack_wait, 60 s. */
  private static final int DRAIN_WITHIN_S_NATS = 150;
  private static final int IDS_PER_REQ = 200;

  final int number;
  final long seed;
  final Path dir;
  /** {@code outbox.backend}: db, or nats (handlers consume from the round's own JetStream stream). */
  final String backend;
  long killDelayMs;
  long killedPid;
  /** Phase times, ms: first start to ready; restart to ready (recovery after the kill); restart to drained and read back. */
  long startMs;
  long restartMs;
  long drainMs;

  CrashRound(int number, long seed, Path dir, String backend) {
    if (!backend.equals("db") && !backend.equals("nats")) {
      throw new IllegalArgumentException("crash round backend: db or nats, not " + backend);
    }
    this.backend = backend;
    this.number = number;
    this.seed = seed;
    this.dir = dir;
  }

  record Outcome(Witness witness, AtKill atKill, Recovery recovery) {}

  Outcome run() throws Exception {
    Random random = new Random(seed);
    killDelayMs = random.nextInt(KILL_WINDOW_MS);
    Path data = Files.createDirectories(dir.resolve("data"));
    Path log = dir.resolve("relay.log");
    int port = freePort();
    try (UpstreamRecorder upstream = new UpstreamRecorder();
        NatsStream nats = backend.equals("nats") ? new NatsStream() : null) {
      Path config = writeConfig(upstream.url(), nats);
      Witness witness;
      long t0 = System.nanoTime();
      try (RelayProcess doomed = RelayProcess.start(config, data, port, log)) {
        startMs = msSince(t0);
        witness = loadAndKill(doomed, port); // close() is only for a failure before the kill
      }
      upstream.nextLifetime();
      StoreProbe left = new StoreProbe(data, "default").copyTo(dir.resolve("at-kill"));
      AtKill atKill = new AtKill(left.outbox(), left.openForwardClaims());
      long t1 = System.nanoTime();
      try (RelayProcess relay = RelayProcess.start(config, data, port, log)) {
        restartMs = msSince(t1);
        Recovery recovery = recover(relay, witness, new StoreProbe(data, "default"), upstream);
        drainMs = msSince(t1);
        return new Outcome(witness, atKill, recovery);
      }
    }
  }

  /**
   * Short leases: the killed process's row and ledger claims are taken over seconds after the restart
   * instead of 10 and 30 minutes, so a round drains quickly. The ledger lease stays above the longest a
   * live forward run can take here (the upstream answers at once; the forward OK timeout is 10 s, and a
   * busy writer lane delays the done mark by a few seconds at most): a takeover while the first run
   * is still going would be a double run caused by this config, not by the crash.
   */
  private Path writeConfig(String upstreamUrl, NatsStream nats) throws Exception {
    Path config = dir.resolve("cairn.json");
    JsonObject c = new JsonObject();
    if (nats != null) {
      c.put("nats", nats.config());
    }
    Files.writeString(config, c
        .put("outbox", new JsonObject().put("backend", backend).put("claim_lease", "5s").put("ledger_lease", "8s"))
        .put("forward", new JsonObject().put("relays", new JsonArray().add(upstreamUrl)))
        .put("tenants", new JsonArray().add(new JsonObject().put("id", "default")
            .put("sse", new JsonObject().put("tokens", new JsonArray().add(FeedConsumer.TOKEN)))))
        .encodePrettily());
    return config;
  }

  private Witness loadAndKill(RelayProcess relay, int port) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      FeedConsumer feed = FeedConsumer.follow(port);
      LiveSubscriber live = LiveSubscriber.open(vertx, port);
      List<Publisher> publishers = new ArrayList<>();
      for (int i = 0; i < PUBLISHERS; i++) {
        publishers.add(Publisher.connect(vertx, port, "r" + number + "p" + i));
      }
      publishers.forEach(Publisher::start);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (publishers.stream().mapToInt(p -> p.accepted().size()).sum() < MIN_ACCEPTED) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("round " + number + ": fewer than " + MIN_ACCEPTED + " events OK'd in 60 s");
        }
        Thread.sleep(10);
      }
      Thread.sleep(killDelayMs);
      killedPid = relay.pid();
      relay.kill9();
      for (Publisher p : publishers) {
        p.stop();
      }
      List<Frame> frames = feed.awaitEnd();
      return Witness.of(publishers, live, feed, frames);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private Recovery recover(RelayProcess relay, Witness witness, StoreProbe probe, UpstreamRecorder upstream)
      throws Exception {
    // The feed consumer resumes first, as a real one would, while the outbox is still draining.
    List<Frame> resumed = FeedConsumer.catchUp(relay.port, witness.cursor());
    StoreProbe.Outbox outbox = drain(probe);
    List<Frame> replay = FeedConsumer.catchUp(relay.port, "0");
    Set<String> found = new HashSet<>();
    Map<String, JsonObject> heads = new HashMap<>();
    try (RelayClient client = RelayClient.connect(relay.port, "/")) {
      List<String> ids = new ArrayList<>(witness.sent().keySet());
      for (int from = 0; from < ids.size(); from += IDS_PER_REQ) {
        List<String> chunk = ids.subList(from, Math.min(ids.size(), from + IDS_PER_REQ));
        for (JsonObject e : client.query("ids", new JsonObject().put("ids", new JsonArray(chunk)).put("limit", chunk.size()))) {
          found.add(e.getString("id"));
        }
      }
      for (String pubkey : witness.replaceables().keySet()) {
        for (JsonObject e : client.query("head", new JsonObject().put("authors", new JsonArray().add(pubkey))
            .put("kinds", new JsonArray().add(Publisher.REPLACEABLE_KIND)))) {
          if (heads.put(pubkey, e) != null) {
            throw new AssertionError("two stored versions of " + pubkey + "'s replaceable event");
          }
        }
      }
    }
    Set<String> effects = upstream.effects();
    Map<String, int[]> deliveries = new HashMap<>();
    Set<String> ids = new HashSet<>(effects);
    ids.addAll(witness.sent().keySet());
    for (String id : ids) {
      deliveries.put(id, new int[] {upstream.deliveries(id, 1), upstream.deliveries(id, 2)});
    }
    return new Recovery(Set.copyOf(found), Map.copyOf(heads), replay, resumed, outbox, probe.searchDocs(), effects,
        Map.copyOf(deliveries));
  }

  /**
   * Waits until every outbox row is done, the forward handler ran for each (its ledger row done: on
   * the nats backend a row is done once JetStream has it, and what the killed process had been
   * delivered comes back only after the consumer's ack_wait), no ledger claim is open and the search
   * index caught up.
   */
  private StoreProbe.Outbox drain(StoreProbe probe) throws Exception {
    int within = backend.equals("nats") ? DRAIN_WITHIN_S_NATS : DRAIN_WITHIN_S;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(within);
    StoreProbe.Outbox o = probe.outbox();
    while (o.notDone() > 0 || o.forwardInProgress() > 0 || o.forwardDone() < o.storedRows() + o.deletedRows()
        || !probe.searchCaughtUp()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("round " + number + " (seed " + seed + ", " + backend + "): outbox not drained within "
            + within + " s after the restart: " + o);
      }
      Thread.sleep(200);
      o = probe.outbox();
    }
    return o;
  }

  private static long msSince(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }

  /** Where the round's time went (the restart is the recovery time after a kill -9). */
  String phases() {
    return "start " + startMs + " ms, kill " + killDelayMs + " ms after " + MIN_ACCEPTED + " OKs, restart ready in "
        + restartMs + " ms, drained and read back in " + drainMs + " ms";
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
