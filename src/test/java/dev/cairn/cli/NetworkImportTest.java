package dev.cairn.cli;

import static dev.cairn.cli.CliHarness.ALICE;
import static dev.cairn.cli.CliHarness.env;
import static dev.cairn.cli.CliHarness.events;
import static dev.cairn.cli.CliHarness.jsonl;
import static dev.cairn.cli.CliHarness.now;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.cli.CliHarness.Result;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.relay.RelayClient;
import dev.cairn.relay.TestRelay;
import dev.cairn.store.StoreDirLock;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** cairn import against a running relay: found through its lock file, or named with --url. */
class NetworkImportTest {
  @TempDir Path tmp;

  private static Map<String, String> envOf(TestRelay relay, String... more) {
    Map<String, String> env = env(relay.dataDir(), more);
    env.put("CAIRN_HTTP_PORT", String.valueOf(relay.port()));
    return env;
  }

  private static Set<String> ids(List<JsonObject> events) {
    return events.stream().map(e -> e.getString("id")).collect(Collectors.toSet());
  }

  @Test
  void whileTheRelayRunsTheImportPublishesToIt() throws Exception {
    try (TestRelay relay = TestRelay.start()) {
      JsonObject lock = StoreDirLock.holder(relay.dataDir()).orElseThrow();
      assertEquals("relay", lock.getString("role"));
      assertEquals(new JsonArray().add(relay.wsUrl()), lock.getJsonArray("ws"));

      List<NostrEvent> evs = events(300, now());
      StringBuilder in = new StringBuilder(new String(jsonl(evs), StandardCharsets.UTF_8));
      in.append("garbage\n\n");
      String sig = evs.get(0).sig();
      in.append(evs.get(0).jsonText().replace(sig, (sig.charAt(0) == '0' ? "1" : "0") + sig.substring(1)))
          .append('\n');
      try (RelayClient live = relay.connect()) {
        live.req("live", new JsonObject().put("kinds", new JsonArray().add(7)));
        live.awaitType("EOSE");

        Result r = CliHarness.run(envOf(relay), in.toString().getBytes(StandardCharsets.UTF_8), "import",
            "--in-flight", "50");
        assertEquals(3, r.code(), r.toString());
        assertTrue(r.err().contains("a relay runs on"), r.err());
        assertTrue(r.outText().contains("published to " + relay.wsUrl() + "/"), r.toString());
        assertEquals(300, r.count("stored"), r.toString());
        assertEquals(1, r.count(EventLines.NOT_JSON), r.toString());
        assertEquals(1, r.count("invalid: signature does not verify"), "the relay verifies: " + r);

        // a live subscriber sees imported events as they are stored
        NostrEvent reaction = evs.stream().filter(e -> e.kind() == 7).findFirst().orElseThrow();
        live.await(f -> f.getString(0).equals("EVENT") && f.getJsonObject(2).getString("id").equals(reaction.id()));
        List<JsonObject> got = live.query("all", new JsonObject().put("limit", 1000));
        assertEquals(evs.stream().map(NostrEvent::id).collect(Collectors.toSet()), ids(got));
      }

      Result again = CliHarness.run(envOf(relay), jsonl(evs), "import", "--quiet");
      assertEquals(0, again.code(), again.toString());
      assertEquals(300, again.count("duplicate: already have this event"), again.toString());

      Result direct = CliHarness.run(envOf(relay), jsonl(evs), "import", "--direct");
      assertEquals(1, direct.code(), direct.toString());
      assertTrue(direct.err().contains("--direct refused"), direct.err());
    }
  }

  @Test
  void urlNamesTheRelayAndTheRelaysOwnRulesApply() throws Exception {
    JsonObject conf = new JsonObject()
        .put("tenants", new JsonArray().add(new JsonObject().put("id", "acme")))
        .put("limits", new JsonObject().put("created_at_lower", 3600))
        .put("policy", new JsonObject().put("rate", new JsonObject()
            .put("events_per_pubkey", new JsonObject().put("per_second", 100).put("burst", 10))));
    try (TestRelay relay = TestRelay.start(conf, Map.of())) {
      long now = now();
      List<NostrEvent> evs = new ArrayList<>();
      for (int i = 0; i < 150; i++) {
        evs.add(ALICE.sign(now - 200 + i, 1, List.of(), "burst " + i)); // one author: over its rate
      }
      NostrEvent old = ALICE.sign(now - 86_400, 1, List.of(), "yesterday");
      evs.add(old);
      Path file = tmp.resolve("in.jsonl");
      Files.write(file, jsonl(evs));
      // an unrelated data dir: only --url says where the relay is
      Result r = CliHarness.run(env(tmp.resolve("elsewhere")), "import", "--url", relay.wsUrl() + "/t/acme",
          "--quiet", file.toString());
      assertEquals(3, r.code(), r.toString());
      assertEquals(150, r.count("stored"), "rate-limited answers are retried: " + r);
      assertEquals(1, r.count("invalid: created_at is more than 3600 seconds in the past"),
          "through the relay, its created_at window applies: " + r);
      try (RelayClient acme = relay.connect("/t/acme"); RelayClient root = relay.connect()) {
        assertEquals(150, acme.query("q", new JsonObject().put("limit", 1000)).size());
        assertEquals(0, root.query("q", new JsonObject().put("limit", 1000)).size());
      }

      Result refused = CliHarness.run(env(tmp.resolve("elsewhere")), "import", "--url", "ws://127.0.0.1:1/",
          file.toString());
      assertEquals(1, refused.code(), refused.toString());
      assertTrue(refused.err().contains("cannot connect"), refused.err());
    }
  }

  @Test
  void oneWriterPerStore() throws Exception {
    Path data = tmp.resolve("data");
    try (StoreDirLock importing = StoreDirLock.acquire(data, "import", List.of())) {
      Exception e = assertThrows(Exception.class, () -> TestRelay.startOn(data, new JsonObject()));
      assertTrue(String.valueOf(rootMessage(e)).contains("in use by import"), rootMessage(e));
      Result r = CliHarness.run(env(data), jsonl(events(3, now())), "import");
      assertEquals(1, r.code(), r.toString());
      assertTrue(r.err().contains("in use by import"), r.err());
    }
    // released: the relay starts, and holds it until it stops
    TestRelay relay = TestRelay.startOn(data, new JsonObject());
    try {
      assertThrows(dev.cairn.store.StoreException.class, () -> StoreDirLock.acquire(data, "import", List.of()));
    } finally {
      relay.stop();
    }
    assertTrue(StoreDirLock.holder(data).isEmpty(), "a stopped relay releases the store");
    Result r = CliHarness.run(env(data), jsonl(events(3, now())), "import", "--quiet");
    assertEquals(3, r.count("stored"), r.toString());
    assertTrue(r.outText().contains("direct into"), r.toString());
  }

  private static String rootMessage(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage();
  }
}
