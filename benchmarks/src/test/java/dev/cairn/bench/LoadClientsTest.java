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
      assertEquals(3000, relay.stored(), "both levels together send the whole file once");
    }
  }

  @Test
  void missingOkFailsTheRun() throws Exception {
    try (MockRelay relay = new MockRelay()) {
      relay.dropEveryNthOk = 50;
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
}
