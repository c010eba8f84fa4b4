package dev.cairn.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tenants[].sse.tokens}: plain and {@code sha256:} entries, matching, config errors, masking. */
class SseTokensTest {
  @TempDir
  Path dir;

  static String sha256(String token) {
    return HexFormat.of().formatHex(SseTokens.digest(token));
  }

  @Test
  void plainAndHashedEntriesMatchThePresentedToken() {
    SseTokens t = SseTokens.of("t", List.of("plain-one", "sha256:" + sha256("hashed-two"),
        "SHA256:" + sha256("upper-three").toUpperCase(Locale.ROOT)));
    assertEquals(3, t.size());
    assertTrue(t.matches("plain-one"));
    assertTrue(t.matches("hashed-two"));
    assertTrue(t.matches("upper-three"));
    assertFalse(t.matches("plain-on"));
    assertFalse(t.matches("plain-one "));
    assertFalse(t.matches(""));
    assertFalse(t.matches("sha256:" + sha256("hashed-two")), "the stored hash is not itself a token");
    assertFalse(t.matches(sha256("hashed-two")));
    assertTrue(SseTokens.of("t", List.of()).isEmpty());
    assertFalse(SseTokens.NONE.matches("anything"));
    assertTrue(t.matches(SseTokens.digest("hashed-two")));
    assertEquals("[3 masked]", t.toString(), "never printed");
  }

  @Test
  void aUtf8TokenIsHashedAsUtf8() {
    assertTrue(SseTokens.of("t", List.of("sha256:" + sha256("jeton-été"))).matches("jeton-été"));
    // printf %s 'jeton-été' | sha256sum
    assertEquals("sha256:" + sha256("jeton-été"), "sha256:" + HexFormat.of().formatHex(
        sha256Bytes("jeton-été".getBytes(java.nio.charset.StandardCharsets.UTF_8))));
  }

  private static byte[] sha256Bytes(byte[] b) {
    try {
      return java.security.MessageDigest.getInstance("SHA-256").digest(b);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aMalformedHashIsAConfigErrorThatDoesNotShowIt() throws Exception {
    for (String bad : List.of("sha256:abc", "sha256:" + "g".repeat(64), "sha256:" + "a".repeat(65), "sha256:")) {
      Path f = dir.resolve("c" + System.nanoTime() + ".json");
      Files.writeString(f, new JsonObject().put("tenants", new JsonArray().add(new JsonObject().put("id", "acme")
          .put("sse", new JsonObject().put("tokens", new JsonArray().add("fine").add(bad)))))
          .encode());
      ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(f, Map.of()), bad);
      assertTrue(e.getMessage().contains("tenants[acme].sse.tokens[1]"), e.getMessage());
      assertFalse(bad.length() > 7 && e.getMessage().contains(bad.substring(7)), e.getMessage());
    }
  }

  @Test
  void tokensOfBothKindsAreMaskedInTheStartLog() {
    String hashed = "sha256:" + sha256("h-secret");
    JsonObject raw = ConfigLoader.merged(null, Map.of("CAIRN_TENANTS", new JsonArray().add(new JsonObject()
        .put("id", "acme").put("sse", new JsonObject().put("tokens", new JsonArray().add("p-secret").add(hashed))))
        .encode()));
    String logged = ConfigLoader.masked(raw).encode();
    assertFalse(logged.contains("p-secret"), logged);
    assertFalse(logged.contains(sha256("h-secret")), logged);
    assertTrue(logged.contains("[2 masked]"), logged);
    CairnConfig c = CairnConfig.from(raw, ConfigSource.NONE);
    assertTrue(c.tenant("acme").sseTokens().matches("h-secret"));
    assertFalse(c.tenant("acme").toString().contains("p-secret"), "a tenant's toString shows no token");
  }
}
