package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Write-policy plugins (issue 11) end to end: a real server, real WebSocket clients and real plugin
 * processes speaking strfry's protocol (src/test/resources/plugins). The default tenant runs strfry's
 * own whitelist example from its docs/plugins.md, unmodified; the other tenants run small test
 * plugins whose answer is chosen by a word in the event's content (see behave.js). Tenants that name
 * the same command share one process.
 */
class PluginTest {
  private static final EventSigner ALICE = EventSigner.random();
  private static final EventSigner MUTED = EventSigner.random();
  private static final Duration DEADLINE = Duration.ofSeconds(15);
  private static final Logger PLUGIN_LOG = Logger.getLogger("dev.cairn.policy.Plugin");
  private static final List<LogRecord> LOGS = new CopyOnWriteArrayList<>();
  private static final Handler CAPTURE = new Handler() {
    @Override
    public void publish(LogRecord r) {
      LOGS.add(r);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private static Path dir;
  private static TestRelay relay;
  private static long startedNanos;

  @BeforeAll
  static void start() throws Exception {
    PLUGIN_LOG.addHandler(CAPTURE);
    dir = Files.createTempDirectory("cairn-plugins");
    Path whitelist = Plugins.install(dir, "whitelist.js");
    Path behave = Plugins.install(dir, "behave.js");
    Path garbage = Plugins.install(dir, "garbage.js");
    Path perl = Plugins.install(dir, "restartable.pl");
    JsonArray node = new JsonArray().add("node").add(behave.toString());
    JsonObject config = new JsonObject()
        // strfry style: one path, run by /bin/sh -c, watched for changes
        .put("policy", new JsonObject().put("plugin", whitelist.toString()))
        .put("tenants", new JsonArray()
            .add(tenant("behave", new JsonObject().put("plugin", node)))
            .add(tenant("slow-reject", new JsonObject().put("plugin", node).put("plugin_timeout", "300ms")))
            .add(tenant("slow-accept", new JsonObject().put("plugin", node).put("plugin_timeout", "300ms")
                .put("plugin_timeout_action", "accept")))
            .add(tenant("busy", new JsonObject().put("plugin", node).put("plugin_max_in_flight", 2)
                .put("plugin_timeout", "5s")))
            .add(tenant("mixed", new JsonObject().put("plugin", node)
                .put("block_words", new JsonArray().add("forbidden"))
                .put("mute_pubkeys", new JsonArray().add(MUTED.pubkey()))))
            .add(tenant("garbage", new JsonObject().put("plugin", new JsonArray().add("node").add(garbage.toString()))
                .put("plugin_timeout", "300ms")))
            // a shell command with arguments: its own process, not the shared one above
            .add(tenant("crash", new JsonObject().put("plugin", "node " + behave)))
            .add(tenant("perl", new JsonObject().put("plugin", "perl " + perl)))
            .add(tenant("broken", new JsonObject().put("plugin", "exit 3")))
            .add(tenant("noplugin", new JsonObject())));
    startedNanos = System.nanoTime();
    relay = TestRelay.start(config, Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    PLUGIN_LOG.removeHandler(CAPTURE);
    if (relay != null) {
      relay.close();
    }
    TestRelay.deleteTree(dir);
  }

  private static JsonObject tenant(String id, JsonObject policy) {
    return new JsonObject().put("id", id).put("policy", policy);
  }

  private static JsonObject note(EventSigner s, String content) {
    return Events.note(s, content + " " + System.nanoTime(), List.of());
  }

  private static boolean stored(RelayClient c, JsonObject e) throws InterruptedException {
    return !c.query("chk" + System.nanoTime() % 100000,
        new JsonObject().put("ids", new JsonArray().add(e.getString("id")))).isEmpty();
  }

  private static void assertRefused(JsonArray ok, String message) {
    assertFalse(ok.getBoolean(2), ok.encode());
    assertTrue(ok.getString(3).startsWith(message), "expected " + message + " got " + ok.encode());
  }

  private static void awaitMetric(String what, double atLeast, MetricRead read) throws Exception {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (read.get() < atLeast) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + DEADLINE + ": " + what);
      }
      Thread.sleep(50);
    }
  }

  @FunctionalInterface
  private interface MetricRead {
    double get() throws Exception;
  }

  private static boolean logged(String text) {
    return LOGS.stream().anyMatch(r -> r.getMessage() != null && r.getMessage().contains(text));
  }

  // ---- strfry's example, unmodified ----

  @Test
  void strfrysWhitelistExampleRunsUnmodified() throws Exception {
    try (RelayClient c = relay.connect()) {
      double before = Plugins.requests(relay, "default", "reject");
      JsonObject e = note(ALICE, "not on the list");
      JsonArray ok = c.publishAndWait(e);
      assertFalse(ok.getBoolean(2), ok.encode());
      assertEquals("blocked: not on white-list", ok.getString(3), "the plugin's own message, as is");
      assertFalse(stored(c, e));
      assertEquals(before + 1, Plugins.requests(relay, "default", "reject"));
    }
  }

  @Test
  void theDefaultTenantsPluginIsNotInherited() throws Exception {
    try (RelayClient c = relay.connect("/t/noplugin")) {
      JsonObject e = note(ALICE, "no plugin here");
      assertTrue(c.publishAndWait(e).getBoolean(2));
      assertTrue(stored(c, e));
    }
  }

  // ---- the three actions ----

  @Test
  void acceptedEventsAreStored() throws Exception {
    try (RelayClient c = relay.connect("/t/behave")) {
      double before = Plugins.requests(relay, "behave", "accept");
      JsonObject e = note(ALICE, "hello");
      JsonArray ok = c.publishAndWait(e);
      assertTrue(ok.getBoolean(2), ok.encode());
      assertEquals("", ok.getString(3));
      assertTrue(stored(c, e));
      assertEquals(before + 1, Plugins.requests(relay, "behave", "accept"));
    }
  }

  @Test
  void rejectionsCarryThePluginsMessageWithANip01Prefix() throws Exception {
    try (RelayClient c = relay.connect("/t/behave")) {
      JsonObject plain = note(ALICE, "#reject");
      assertRefused(c.publishAndWait(plain), "blocked: no thanks");
      assertFalse(stored(c, plain));
      assertRefused(c.publishAndWait(note(ALICE, "#restricted")), "restricted: members only");
      assertRefused(c.publishAndWait(note(ALICE, "#reject-empty")), "blocked: rejected by write policy");
    }
  }

  @Test
  void shadowRejectIsOkButNeitherStoredNorDelivered() throws Exception {
    try (RelayClient sub = relay.connect("/t/behave"); RelayClient pub = relay.connect("/t/behave")) {
      JsonObject filter = new JsonObject().put("authors", new JsonArray().add(ALICE.pubkey())).put("limit", 0);
      assertTrue(sub.query("live", filter).isEmpty());
      double before = Plugins.requests(relay, "behave", "shadowReject");

      JsonObject shadow = note(ALICE, "#shadow");
      JsonArray ok = pub.publishAndWait(shadow);
      assertTrue(ok.getBoolean(2), "a shadow reject is answered as if accepted: " + ok.encode());
      assertEquals("", ok.getString(3), "the plugin's msg is not sent on a shadow reject");

      JsonObject marker = note(ALICE, "after the shadow-rejected one");
      assertTrue(pub.publishAndWait(marker).getBoolean(2));
      JsonArray first = sub.await(f -> f.getString(0).equals("EVENT") && "live".equals(f.getString(1)));
      assertEquals(marker.getString("id"), first.getJsonObject(2).getString("id"), "the shadow-rejected event was delivered");
      assertFalse(stored(pub, shadow), "the shadow-rejected event was stored");
      assertEquals(before + 1, Plugins.requests(relay, "behave", "shadowReject"));
    }
  }

  @Test
  void theRequestCarriesTheEventAsReceivedAndItsSource() throws Exception {
    try (RelayClient c = relay.connect("/t/behave")) {
      JsonObject e = Events.note(ALICE, "#echo \"quotes\", \\ backslash, émoji 🪨, tab\t " + System.nanoTime(),
          List.of(List.of("t", "cairn"), List.of("p", ALICE.pubkey(), "wss://r.example", "")));
      JsonArray ok = c.publishAndWait(e);
      assertFalse(ok.getBoolean(2));
      JsonObject req = new JsonObject(ok.getString(3).substring("blocked: ".length()));
      assertEquals("new", req.getString("type"));
      assertEquals(e, req.getJsonObject("event"), "every field exactly as the client sent it");
      assertEquals("IP4", req.getString("sourceType"));
      assertEquals("127.0.0.1", req.getString("sourceInfo"));
      assertTrue(Math.abs(req.getLong("receivedAt") - Events.now()) < 60, req.encode());
      assertFalse(req.containsKey("authed"), "no NIP-42 AUTH on this connection");
    }
  }

  @Test
  void answersAreMatchedByEventIdNotByOrder() throws Exception {
    try (RelayClient c = relay.connect("/t/behave")) {
      JsonObject slow = note(ALICE, "#slow=700");
      JsonObject fast = note(ALICE, "fast");
      c.publish(slow);
      c.publish(fast);
      JsonArray first = c.await(f -> f.getString(0).equals("OK"));
      assertEquals(fast.getString("id"), first.getString(1), "the plugin answered the second event first");
      assertTrue(first.getBoolean(2));
      JsonArray second = c.await(f -> f.getString(0).equals("OK"));
      assertEquals(slow.getString("id"), second.getString(1));
      assertTrue(second.getBoolean(2), second.encode());
    }
  }

  @Test
  void anUnknownActionIsAnError() throws Exception {
    try (RelayClient c = relay.connect("/t/behave")) {
      assertRefused(c.publishAndWait(note(ALICE, "#bogus-action")), "error: internal error");
    }
    assertTrue(logged("unknown action \"maybe\""));
  }

  @Test
  void thePluginsStderrIsLogged() throws Exception {
    try (RelayClient c = relay.connect("/t/behave")) {
      JsonObject e = note(ALICE, "#stderr");
      assertTrue(c.publishAndWait(e).getBoolean(2));
      awaitMetric("stderr line logged", 1, () -> logged("behave.js was asked about " + e.getString("id")) ? 1 : 0);
    }
  }

  // ---- rule order ----

  @Test
  void thePluginComesAfterTheBuiltInRulesAndBeforeMute() throws Exception {
    try (RelayClient c = relay.connect("/t/mixed")) {
      double asked = Plugins.metric(relay, "cairn_policy_plugin_requests_total", Map.of("tenant", "mixed"));
      assertRefused(c.publishAndWait(note(ALICE, "#reject forbidden")), "blocked: content contains a blocked word");
      assertEquals(asked, Plugins.metric(relay, "cairn_policy_plugin_requests_total", Map.of("tenant", "mixed")),
          "an event the built-in rules refuse is not sent to the plugin");

      assertRefused(c.publishAndWait(note(MUTED, "#reject")), "blocked: no thanks");
      JsonObject muted = note(MUTED, "accepted by the plugin, then muted");
      JsonArray ok = c.publishAndWait(muted);
      assertTrue(ok.getBoolean(2), ok.encode());
      assertFalse(stored(c, muted), "mute still applies after the plugin accepted");
      assertEquals(asked + 2, Plugins.metric(relay, "cairn_policy_plugin_requests_total", Map.of("tenant", "mixed")));
    }
  }

  // ---- timeouts and overload ----

  @Test
  void aTimeoutRejectsByDefault() throws Exception {
    try (RelayClient c = relay.connect("/t/slow-reject")) {
      double before = Plugins.requests(relay, "slow-reject", "timeout");
      JsonObject e = note(ALICE, "#slow=3000");
      long t0 = System.nanoTime();
      JsonArray ok = c.publishAndWait(e);
      long millis = (System.nanoTime() - t0) / 1_000_000;
      assertRefused(ok, "error: the write policy did not answer in time");
      assertTrue(millis >= 250 && millis < 2500, "answered at the 300 ms timeout, took " + millis + " ms");
      assertFalse(stored(c, e));
      assertEquals(before + 1, Plugins.requests(relay, "slow-reject", "timeout"));
    }
  }

  @Test
  void aTimeoutAcceptsWhenConfigured() throws Exception {
    try (RelayClient c = relay.connect("/t/slow-accept")) {
      double before = Plugins.requests(relay, "slow-accept", "timeout");
      JsonObject e = note(ALICE, "#slow=3000");
      JsonArray ok = c.publishAndWait(e);
      assertTrue(ok.getBoolean(2), ok.encode());
      assertTrue(stored(c, e));
      assertEquals(before + 1, Plugins.requests(relay, "slow-accept", "timeout"));
    }
  }

  @Test
  void aTenantWithTooManyEventsWaitingIsRateLimited() throws Exception {
    try (RelayClient c = relay.connect("/t/busy")) {
      // three slow events at once, two may wait (they reach policy in any order: signatures are checked in parallel)
      java.util.Set<String> ids = new java.util.HashSet<>();
      for (int i = 0; i < 3; i++) {
        JsonObject e = note(ALICE, "#slow=1000");
        ids.add(e.getString("id"));
        c.publish(e);
      }
      JsonArray refused = c.await(f -> f.getString(0).equals("OK") && ids.contains(f.getString(1)));
      assertRefused(refused, "rate-limited: the write policy is busy");
      ids.remove(refused.getString(1));
      while (!ids.isEmpty()) {
        JsonArray ok = c.await(f -> f.getString(0).equals("OK") && ids.contains(f.getString(1)));
        assertTrue(ok.getBoolean(2), ok.encode());
        ids.remove(ok.getString(1));
      }
      assertTrue(c.publishAndWait(note(ALICE, "room again")).getBoolean(2));
      assertEquals(1, Plugins.requests(relay, "busy", "overload"));
    }
  }

  // ---- failures ----

  @Test
  void aPluginThatExitsIsRestartedAndKeepsWorking() throws Exception {
    try (RelayClient c = relay.connect("/t/perl")) {
      JsonArray first = c.publishAndWait(note(ALICE, "#pid"));
      assertRefused(first, "blocked: pid ");
      double restarts = Plugins.metric(relay, "cairn_policy_plugin_restarts_total",
          Map.of("plugin", "restartable.pl", "reason", "exit"));
      assertTrue(c.publishAndWait(note(ALICE, "#exit")).getBoolean(2), "answered, then the plugin exits");
      awaitMetric("restart after the exit", restarts + 1, () -> Plugins.metric(relay,
          "cairn_policy_plugin_restarts_total", Map.of("plugin", "restartable.pl", "reason", "exit")));

      JsonArray again = c.publishAndWait(note(ALICE, "#pid"));
      assertRefused(again, "blocked: pid ");
      assertNotEquals(first.getString(3), again.getString(3), "a new process answers");
      JsonObject e = note(ALICE, "still working");
      assertTrue(c.publishAndWait(e).getBoolean(2));
      assertTrue(stored(c, e));
    }
    assertTrue(logged("exited with code 0; restarting it"));
  }

  @Test
  void aPluginThatDiesWithEventsInFlightFailsThemPerTimeoutAction() throws Exception {
    try (RelayClient c = relay.connect("/t/crash")) {
      double errors = Plugins.requests(relay, "crash", "error");
      long t0 = System.nanoTime();
      JsonArray ok = c.publishAndWait(note(ALICE, "#crash"));
      assertRefused(ok, "error: the write policy failed");
      assertTrue(System.nanoTime() - t0 < 1_500_000_000L, "answered when the plugin died, not at the 2 s timeout");
      assertEquals(errors + 1, Plugins.requests(relay, "crash", "error"));
      JsonObject e = note(ALICE, "after the crash");
      assertTrue(c.publishAndWait(e).getBoolean(2), "waits for the restarted plugin");
      assertTrue(stored(c, e));
    }
  }

  @Test
  void aPluginThatCannotRunBacksOffInsteadOfSpinning() throws Exception {
    try (RelayClient c = relay.connect("/t/broken")) {
      assertRefused(c.publishAndWait(note(ALICE, "nobody answers")), "error: the write policy");
      Thread.sleep(1500); // an observation window: how often it was started since the relay started
      double restarts = Plugins.metric(relay, "cairn_policy_plugin_restarts_total",
          Map.of("plugin", "exit", "reason", "exit"));
      // a backoff doubling from 100 ms starts it about log2(t / 100 ms) times; spinning would be thousands
      double millis = (System.nanoTime() - startedNanos) / 1e6;
      double bound = 3 + Math.log(millis / 100) / Math.log(2);
      assertTrue(restarts >= 2 && restarts <= bound, "restarts " + restarts + " in " + millis + " ms, bound " + bound);
      assertRefused(c.publishAndWait(note(ALICE, "still nobody")), "error: the write policy");
    }
    assertTrue(logged("exited with code 3"));
  }

  @Test
  void garbageLinesAreLoggedAndTheEventAnsweredPerTimeoutAction() throws Exception {
    try (RelayClient c = relay.connect("/t/garbage")) {
      JsonObject e = note(ALICE, "anyone there?");
      assertRefused(c.publishAndWait(e), "error: the write policy did not answer in time");
      assertFalse(stored(c, e));
      assertEquals(1, Plugins.requests(relay, "garbage", "timeout"));
    }
    assertTrue(logged("wrote a line that is not an answer (not JSON), ignored: this is not json"));
  }
}
