package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NIP-77 interop: nostr-tools' own negentropy client ({@code interop/nip77/sync.mjs}, pinned in its
 * package.json) syncs against Cairn, and both sides learn exactly the difference. Skipped when node or
 * the script's modules are missing ({@code .ci/run} installs them with {@code npm ci}).
 */
@Tag("interop")
class NegentropyInteropTest {
  private static final Path SCRIPT_DIR = Path.of("interop", "nip77");

  @TempDir Path tmp;

  @Test
  void nostrToolsClientLearnsExactlyTheDifference() throws Exception {
    assumeTrue(Files.isDirectory(SCRIPT_DIR.resolve("node_modules").resolve("nostr-tools")),
        "interop/nip77/node_modules missing: run npm ci there");
    assumeTrue(nodeWorks(), "node is not installed");
    EventSigner alice = EventSigner.random();
    try (TestRelay relay = TestRelay.start(); RelayClient c = relay.connect()) {
      List<JsonObject> stored = NegentropyRelayTest.publish(c, alice, 150, Events.now() - 2000);
      // the client holds 100 of the relay's events and 40 ids of its own
      JsonArray items = new JsonArray();
      Set<String> clientOnly = new HashSet<>();
      for (JsonObject e : stored.subList(50, 150)) {
        items.add(new JsonObject().put("id", e.getString("id")).put("created_at", e.getLong("created_at")));
      }
      for (int i = 0; i < 40; i++) {
        JsonObject f = NegentropyRelayTest.foreign(Events.now() - 2000 + i);
        clientOnly.add(f.getString("id"));
        items.add(f);
      }
      Path input = tmp.resolve("input.json");
      Files.writeString(input, new JsonObject()
          .put("filter", NegentropyRelayTest.byAuthor(alice)).put("items", items).encode());
      JsonObject out = run(relay.wsUrl(), input);
      assertEquals(null, out.getValue("error"), out.encode());
      assertEquals(clientOnly, set(out.getJsonArray("have")));
      assertEquals(NegentropySync.ids(stored.subList(0, 50)), set(out.getJsonArray("need")));
      assertTrue(out.getInteger("rounds") >= 1);
    }
  }

  static JsonObject run(String url, Path input) throws Exception {
    Process p = new ProcessBuilder("node", "sync.mjs", url, input.toAbsolutePath().toString())
        .directory(SCRIPT_DIR.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    byte[] stdout = p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("sync.mjs did not finish within 60 s");
    }
    assertEquals(0, p.exitValue(), new String(stdout, StandardCharsets.UTF_8));
    return new JsonObject(new String(stdout, StandardCharsets.UTF_8).trim());
  }

  private static boolean nodeWorks() {
    try {
      Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  private static Set<String> set(JsonArray a) {
    Set<String> out = new HashSet<>();
    a.forEach(x -> out.add((String) x));
    return out;
  }
}
