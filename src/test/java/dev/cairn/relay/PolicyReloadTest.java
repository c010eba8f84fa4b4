package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.policy.ReloadSignal;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The policy rules reload without a restart: the config file is polled (about every 2 s), a broken
 * file keeps the old rules, SIGHUP reloads at once, keys outside the policy blocks wait for a restart.
 * Waits are deadlines with polling, never fixed sleeps.
 */
class PolicyReloadTest {
  private static final Duration DEADLINE = Duration.ofSeconds(15);
  private static final EventSigner A = EventSigner.random();
  private static final EventSigner B = EventSigner.random();

  @TempDir
  Path dir;

  private static String config(String blockedPubkey, int maxLimit) {
    return new JsonObject()
        .put("limits", new JsonObject().put("max_limit", maxLimit))
        .put("policy", new JsonObject().put("block_pubkeys", new JsonArray().add(blockedPubkey)))
        .encodePrettily();
  }

  private static JsonArray publish(RelayClient c, EventSigner s) throws InterruptedException {
    return c.publishAndWait(Events.note(s, "hello " + System.nanoTime(), List.of()));
  }

  private static boolean accepted(RelayClient c, EventSigner s) throws InterruptedException {
    return publish(c, s).getBoolean(2);
  }

  /** Publishes as {@code s} until the answer is {@code wantAccepted}; fails past the deadline. */
  private static void awaitRule(RelayClient c, EventSigner s, boolean wantAccepted, String what) throws Exception {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (accepted(c, s) != wantAccepted) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + DEADLINE + ": " + what);
      }
      Thread.sleep(100);
    }
  }

  private static double reloads(TestRelay relay, String result) throws Exception {
    HttpResponse<String> r = TestRelay.http().send(
        HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
    return r.body().lines()
        .filter(l -> l.startsWith("cairn_policy_reloads_total{") && l.contains("result=\"" + result + "\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  private static void awaitReloads(TestRelay relay, String result, double atLeast) throws Exception {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (reloads(relay, result) < atLeast) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no " + result + " reload within " + DEADLINE);
      }
      Thread.sleep(100);
    }
  }

  private static int nip11MaxLimit(TestRelay relay) throws Exception {
    HttpResponse<String> r = TestRelay.http().send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/"))
        .header("Accept", "application/nostr+json").build(), HttpResponse.BodyHandlers.ofString());
    return new JsonObject(r.body()).getJsonObject("limitation").getInteger("max_limit");
  }

  @Test
  void aChangedFileAppliesWithoutRestartAndABrokenOneKeepsTheRules() throws Exception {
    Path file = dir.resolve("cairn.json");
    Files.writeString(file, config(A.pubkey(), 5000));
    try (TestRelay relay = TestRelay.startWithConfigFile(file, Map.of()); RelayClient c = relay.connect()) {
      assertFalse(accepted(c, A), "A is blocked by the file the server started with");
      assertTrue(accepted(c, B));

      // The rule changes (and a key that needs a restart changes too).
      Files.writeString(file, config(B.pubkey(), 77) + "\n");
      awaitRule(c, B, false, "B blocked after the file changed");
      assertTrue(accepted(c, A), "A is no longer blocked");
      assertEquals(5000, nip11MaxLimit(relay), "limits.max_limit needs a restart: still the old value");

      // Not JSON: the rules stay.
      double errors = reloads(relay, "error");
      Files.writeString(file, "{ \"policy\": { \"block_pubkeys\": [");
      awaitReloads(relay, "error", errors + 1);
      assertFalse(accepted(c, B), "B still blocked after a broken file");
      assertTrue(accepted(c, A));

      // JSON, but a regex that does not compile: the rules stay.
      Files.writeString(file, new JsonObject().put("policy", new JsonObject()
          .put("block_pubkeys", new JsonArray())
          .put("block_regexes", new JsonArray().add("(unclosed"))).encodePrettily());
      awaitReloads(relay, "error", errors + 2);
      assertFalse(accepted(c, B), "B still blocked after a file with a bad regex");

      // Fixed: the new rules apply.
      Files.writeString(file, config(A.pubkey(), 77));
      awaitRule(c, A, false, "A blocked again after the file was fixed");
      assertTrue(accepted(c, B));
    }
  }

  @Test
  void sighupReloadsAtOnce() throws Exception {
    Path file = dir.resolve("cairn.json");
    Files.writeString(file, config(A.pubkey(), 5000));
    try (TestRelay relay = TestRelay.startWithConfigFile(file, Map.of()); RelayClient c = relay.connect()) {
      assumeTrue(ReloadSignal.installed(), "this JVM does not let us handle SIGHUP");
      assertFalse(accepted(c, A));
      awaitReloads(relay, "ok", 1); // the start-up read is done: the poll has seen this version
      // Same size and same mtime: the poll cannot tell the file changed; only SIGHUP reloads it.
      FileTime mtime = Files.getLastModifiedTime(file);
      Files.writeString(file, config(B.pubkey(), 5000));
      Files.setLastModifiedTime(file, mtime);
      sun.misc.Signal.raise(new sun.misc.Signal("HUP"));
      awaitRule(c, B, false, "B blocked after SIGHUP");
      assertTrue(accepted(c, A));
    }
  }
}
