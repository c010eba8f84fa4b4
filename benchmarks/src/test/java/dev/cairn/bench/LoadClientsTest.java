package dev.cairn.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.bench.gen.GenerateEvents;
import dev.cairn.bench.load.Args;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Java load clients measure a working relay and fail loudly on a broken one. */
class LoadClientsTest {
  @TempDir static Path dir;
  static Path events;

  @BeforeAll
  static void generate() throws Exception {
    events = dir.resolve("ev.jsonl");
    GenerateEvents.main(new String[] {"--count", "3000", "--authors", "30", "--seed", "3", "--out", events.toString(),
        "--verify-sample", "0"});
  }

  static int ingest(String url, Path results, String connections) throws Exception {
    return dev.cairn.bench.load.IngestLoad.run(new Args(new String[] {"--url", url, "--file", events.toString(),
        "--connections", connections, "--window", "8", "--duration", "0.2", "--ok-timeout", "3",
        "--result-file", results.toString()}));
  }

  @Test
  void ingestAgainstAWorkingRelay() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      Path results = dir.resolve("ok.jsonl");
      assertEquals(0, ingest(relay.url(), results, "1,4"));
      List<String> lines = Files.readAllLines(results);
      assertEquals(2, lines.size());
      JsonObject r = new JsonObject(lines.get(1));
      assertTrue(r.getBoolean("ok"));
      assertTrue(r.getLong("accepted") > 0);
      long accepted = new JsonObject(lines.get(0)).getLong("accepted") + r.getLong("accepted");
      assertEquals(accepted, relay.stored(), "the two levels never send an event twice");
    }
  }

  @Test
  void missingOkFailsTheRun() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      relay.dropEveryNthOk = 5;
      assertEquals(1, ingest(relay.url(), dir.resolve("drop.jsonl"), "2"));
    }
  }

  @Test
  void okFalseFailsTheRun() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      relay.rejectAll = true;
      assertEquals(1, ingest(relay.url(), dir.resolve("reject.jsonl"), "2"));
    }
  }

  @Test
  void noRelayFailsTheRun() throws Exception {
    assertEquals(1, ingest("ws://127.0.0.1:1", dir.resolve("none.jsonl"), "1"));
  }

  static int fanout(String url, Path results) throws Exception {
    return fanout(url, results, "--rate", "100");
  }

  /** 100 events over 1 s to 20 subscribers; the level from {@code level} (e.g. --levels overload:100). */
  static int fanout(String url, Path results, String... level) throws Exception {
    Path f = dir.resolve("fan-" + System.nanoTime() + ".jsonl");
    GenerateEvents.main(new String[] {"--count", "200", "--authors", "30", "--seed", Long.toString(System.nanoTime()),
        "--out", f.toString(), "--base-time", Long.toString(System.currentTimeMillis() / 1000), "--spread", "30",
        "--mix", "1:70,7:30", "--verify-sample", "0"});
    List<String> args = new java.util.ArrayList<>(List.of("--url", url, "--file", f.toString(),
        "--subscribers", "20", "--publishers", "2", "--duration", "1", "--ok-timeout", "3", "--quiet", "1",
        "--drain-max", "3", "--pid", Long.toString(ProcessHandle.current().pid()), "--relay-name", "mock",
        "--result-file", results.toString(), "--client-warmup", "0"));
    args.addAll(List.of(level));
    return dev.cairn.bench.load.FanoutLoad.run(new Args(args.toArray(String[]::new)));
  }

  @Test
  void fanoutCountsEveryDelivery() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      Path results = dir.resolve("fan-ok.jsonl");
      assertEquals(0, fanout(relay.url(), results));
      JsonObject r = new JsonObject(Files.readAllLines(results).get(0));
      assertEquals(100L * 20, r.getLong("deliveries"));
      assertEquals(0L, r.getLong("missed"));
      assertEquals(0L, r.getLong("duplicated"));
      assertEquals(0, r.getInteger("subscribers_closed"));
      assertEquals("mock", r.getString("relay"));
      assertTrue(r.getDouble("delivery_p50_ms") > 0);
      assertTrue(r.getDouble("rss_max_mb") >= r.getDouble("rss_start_mb"), "RSS sampled (this JVM's pid)");
    }
  }

  @Test
  void clientWarmupStaysInTheToolsOwnProcess() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      Path results = dir.resolve("fan-warm.jsonl");
      assertEquals(0, fanout(relay.url(), results, "--rate", "100", "--client-warmup", "0.3"));
      assertEquals(100, relay.stored(), "the relay under test saw only the level's events");
      List<String> lines = Files.readAllLines(results);
      assertEquals(1, lines.size(), "the warm-up is not reported");
      JsonObject r = new JsonObject(lines.get(0));
      assertEquals("rate100", r.getString("level"));
      assertEquals(100L * 20, r.getLong("deliveries"));
      assertEquals(0L, r.getLong("missed"));
    }
  }

  @Test
  void closedSubscribersAreReportedNotFailedUnderOverload() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      relay.closeSubscribers = 3;
      relay.closeAfterDeliveries = 5;
      Path results = dir.resolve("fan-closed.jsonl");
      assertEquals(0, fanout(relay.url(), results, "--levels", "overload:100"));
      JsonObject r = new JsonObject(Files.readAllLines(results).get(0));
      assertEquals(3, r.getInteger("subscribers_closed"));
      assertEquals(17, r.getInteger("subscribers_connected"));
      assertTrue(r.getString("close_reasons").contains("1008"), r.getString("close_reasons"));
      assertTrue(r.getString("close_reasons").contains("slow consumer"), r.getString("close_reasons"));
      assertEquals(100L * 17, r.getLong("expected_deliveries"));
      assertEquals(0L, r.getLong("missed"));
    }
  }

  @Test
  void aClosedFrameCountsAsAClosedSubscriber() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      relay.closeSubscribers = 2;
      relay.closeWithClosedFrame = true;
      Path results = dir.resolve("fan-closed-frame.jsonl");
      assertEquals(0, fanout(relay.url(), results, "--levels", "overload:100"));
      JsonObject r = new JsonObject(Files.readAllLines(results).get(0));
      assertEquals(2, r.getInteger("subscribers_closed"));
      assertTrue(r.getString("close_reasons").contains("too slow"), r.getString("close_reasons"));
    }
  }

  @Test
  void closedSubscribersFailALevelThatDoesNotAllowThem() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      relay.closeSubscribers = 1;
      assertEquals(1, fanout(relay.url(), dir.resolve("fan-closed-latency.jsonl"), "--levels", "latency:100"));
    }
  }

  @Test
  void aMissedDeliveryOnAConnectedSubscriberFailsEvenUnderOverload() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      relay.closeSubscribers = 2;
      relay.dropDeliveryEveryNth = 500;
      Path results = dir.resolve("fan-missed-overload.jsonl");
      assertEquals(1, fanout(relay.url(), results, "--levels", "overload:100"));
      JsonObject r = new JsonObject(Files.readAllLines(results).get(0));
      assertTrue(r.getLong("missed") > 0);
      assertTrue(r.getJsonArray("errors").encode().contains("still connected"), r.encode());
    }
  }

  @Test
  void duplicateDeliveriesFailTheRun() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      relay.duplicateDeliveryEveryNth = 300;
      Path results = dir.resolve("fan-dup.jsonl");
      assertEquals(1, fanout(relay.url(), results, "--levels", "overload:100"));
      assertTrue(new JsonObject(Files.readAllLines(results).get(0)).getLong("duplicated") > 0);
    }
  }

  static Path preloadAndPlan(String url, Path results, int n) throws Exception {
    assertEquals(0, dev.cairn.bench.load.IngestLoad.run(new Args(new String[] {"--url", url, "--file", events.toString(),
        "--preload", "--max-events", Integer.toString(n), "--connections", "2", "--window", "16",
        "--result-file", results.toString()})));
    Path plan = dir.resolve("plan-" + System.nanoTime() + ".jsonl");
    dev.cairn.bench.load.QueryPlan.main(new String[] {"--file", events.toString(), "--max-events", Integer.toString(n),
        "--out", plan.toString(), "--per-type", "10"});
    return plan;
  }

  static int query(String url, Path plan, Path results) throws Exception {
    return dev.cairn.bench.load.QueryLoad.run(new Args(new String[] {"--url", url, "--queries", plan.toString(),
        "--connections", "3", "--duration", "1", "--req-timeout", "5", "--result-file", results.toString()}));
  }

  @Test
  void queryMixClosedLoop() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      Path results = dir.resolve("query.jsonl");
      Path plan = preloadAndPlan(relay.url(), results, 1000);
      List<String> planLines = Files.readAllLines(plan);
      assertEquals(40, planLines.size());
      for (String type : dev.cairn.bench.load.QueryPlan.TYPES) {
        assertEquals(10, planLines.stream().filter(l -> new JsonObject(l).getString("type").equals(type)).count(), type);
      }
      assertEquals(0, query(relay.url(), plan, results));
      List<JsonObject> rs = Files.readAllLines(results).stream().map(JsonObject::new)
          .filter(r -> "query".equals(r.getString("scenario"))).toList();
      assertEquals(5, rs.size(), "four shapes and all");
      JsonObject all = rs.stream().filter(r -> "all".equals(r.getString("type"))).findFirst().orElseThrow();
      assertTrue(all.getLong("reqs") > 0);
      JsonObject ids = rs.stream().filter(r -> "ids".equals(r.getString("type"))).findFirst().orElseThrow();
      assertEquals(20.0, ids.getDouble("events_per_req"));
    }
  }

  @Test
  void anIdsQueryMissingAStoredIdFails() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      Path results = dir.resolve("query-short.jsonl");
      Path plan = preloadAndPlan(relay.url(), results, 1000);
      relay.dropIdsFromQueries = true;
      assertEquals(1, query(relay.url(), plan, results));
    }
  }

  @Test
  void missingDeliveriesFailTheRun() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      relay.dropDeliveryEveryNth = 97;
      assertEquals(1, fanout(relay.url(), dir.resolve("fan-drop.jsonl")));
    }
  }
}
