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
    Path f = dir.resolve("fan-" + System.nanoTime() + ".jsonl");
    GenerateEvents.main(new String[] {"--count", "200", "--authors", "30", "--seed", Long.toString(System.nanoTime()),
        "--out", f.toString(), "--base-time", Long.toString(System.currentTimeMillis() / 1000), "--spread", "30",
        "--mix", "1:70,7:30", "--verify-sample", "0"});
    return dev.cairn.bench.load.FanoutLoad.run(new Args(new String[] {"--url", url, "--file", f.toString(),
        "--subscribers", "20", "--publishers", "2", "--rate", "100", "--duration", "1", "--drain", "3",
        "--result-file", results.toString()}));
  }

  @Test
  void fanoutCountsEveryDelivery() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      Path results = dir.resolve("fan-ok.jsonl");
      assertEquals(0, fanout(relay.url(), results));
      JsonObject r = new JsonObject(Files.readAllLines(results).get(0));
      assertEquals(100L * 20, r.getLong("deliveries"));
      assertTrue(r.getDouble("delivery_p50_ms") > 0);
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
