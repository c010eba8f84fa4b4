package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plugin is replaced when its file changes (mtime, as strfry checks it) and when the config file
 * names another command (the policy rules reload). Waits are deadlines with polling.
 */
class PluginReloadTest {
  private static final Duration DEADLINE = Duration.ofSeconds(15);
  private static final EventSigner A = EventSigner.random();

  @TempDir
  Path dir;

  private static String answer(RelayClient c) throws InterruptedException {
    JsonArray ok = c.publishAndWait(Events.note(A, "hello " + System.nanoTime(), List.of()));
    return ok.getBoolean(2) ? "accepted" : ok.getString(3);
  }

  /** Publishes until the answer starts with {@code prefix}; returns it. */
  private static String awaitAnswer(RelayClient c, String prefix) throws Exception {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (true) {
      String a = answer(c);
      if (a.startsWith(prefix)) {
        return a;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + DEADLINE + ": " + prefix + " (last answer: " + a + ")");
      }
      Thread.sleep(100);
    }
  }

  private static void rewrite(Path script, int version) throws Exception {
    String text = Files.readString(script).replaceAll("const VERSION = \\d+;", "const VERSION = " + version + ";");
    FileTime before = Files.getLastModifiedTime(script);
    Files.writeString(script, text);
    // a coarse file-system clock must not hide the edit
    Files.setLastModifiedTime(script, FileTime.fromMillis(before.toMillis() + 2000));
  }

  @Test
  void aChangedPluginFileIsReloaded() throws Exception {
    Path script = Plugins.install(dir, "version.js");
    JsonObject config = new JsonObject()
        .put("policy", new JsonObject().put("plugin", script.toString()))
        .put("tenants", new JsonArray().add(new JsonObject().put("id", "listed")
            .put("policy", new JsonObject().put("plugin", new JsonArray().add("node").add(script.toString())))));
    try (TestRelay relay = TestRelay.start(config, Map.of());
        RelayClient c = relay.connect(); RelayClient listed = relay.connect("/t/listed")) {
      String first = awaitAnswer(c, "blocked: version 1");
      awaitAnswer(listed, "blocked: version 1");
      assertEquals(first, answer(c), "the same process answers while the file is unchanged");

      rewrite(script, 2);
      String second = awaitAnswer(c, "blocked: version 2");
      assertFalse(second.endsWith(first.substring(first.indexOf(" pid "))), "a new process");
      awaitAnswer(listed, "blocked: version 2"); // a command list watches the files it names
      assertTrue(Plugins.metric(relay, "cairn_policy_plugin_restarts_total", Map.of("reason", "changed")) >= 2);
    }
  }

  @Test
  void anotherCommandInTheConfigFileReplacesThePlugin() throws Exception {
    Path v1 = Plugins.install(dir, "version.js");
    Path v7 = dir.resolve("seven.js");
    Files.copy(v1, v7);
    rewrite(v7, 7);
    Plugins.executable(v7);
    Path file = dir.resolve("cairn.json");
    Files.writeString(file, new JsonObject().put("policy", new JsonObject().put("plugin", v1.toString())).encode());
    try (TestRelay relay = TestRelay.startWithConfigFile(file, Map.of()); RelayClient c = relay.connect()) {
      awaitAnswer(c, "blocked: version 1");

      Files.writeString(file, new JsonObject().put("policy", new JsonObject()
          .put("plugin", new JsonArray().add("node").add(v7.toString()))).encodePrettily());
      awaitAnswer(c, "blocked: version 7");

      Files.writeString(file, new JsonObject().put("policy", new JsonObject().put("plugin", "")).encode() + "\n");
      awaitAnswer(c, "accepted");

      // a broken plugin setting keeps the rules (and the plugin) as they are
      double errors = Plugins.metric(relay, "cairn_policy_reloads_total", Map.of("result", "error"));
      Files.writeString(file, new JsonObject().put("policy", new JsonObject().put("plugin", v1.toString())
          .put("plugin_timeout_action", "shrug")).encode());
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (Plugins.metric(relay, "cairn_policy_reloads_total", Map.of("result", "error")) < errors + 1) {
        assertTrue(System.nanoTime() < deadline, "the broken file was not read");
        Thread.sleep(100);
      }
      assertEquals("accepted", answer(c));
    }
  }
}
