package dev.cairn.feed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.config.SseTokens;
import dev.cairn.relay.TestRelay;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SSE tokens stored plain and as {@code sha256:<hex>} (CONTRACT section 4): the right token opens the
 * stream, a wrong one is 401, another tenant's token is 403, whichever way either tenant stores it.
 */
@Timeout(60)
class SseTokenAuthTest {
  private static TestRelay relay;

  @BeforeAll
  static void start() throws Exception {
    String hashed = "sha256:" + HexFormat.of().formatHex(SseTokens.digest("hashed-tok"));
    JsonArray tenants = new JsonArray()
        .add(new JsonObject().put("id", "plain").put("sse", new JsonObject().put("tokens", new JsonArray().add("plain-tok"))))
        .add(new JsonObject().put("id", "hashed").put("sse", new JsonObject().put("tokens", new JsonArray().add(hashed))))
        .add(new JsonObject().put("id", "mixed").put("sse", new JsonObject()
            .put("tokens", new JsonArray().add("mixed-plain").add("sha256:" + HexFormat.of().formatHex(SseTokens.digest("mixed-hashed"))))));
    relay = TestRelay.start(new JsonObject().put("tenants", tenants), Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    relay.close();
  }

  private static String url(String tenant) {
    return relay.httpUrl() + "/t/" + tenant + "/v1/events";
  }

  private static int status(String tenant, String token) throws Exception {
    return SseClient.get(url(tenant), token == null ? Map.of() : Map.of("Authorization", "Bearer " + token)).statusCode();
  }

  private static void opens(String tenant, String token) throws Exception {
    try (SseClient c = SseClient.open(url(tenant), Map.of("Authorization", "Bearer " + token))) {
      assertEquals("reset", c.next().event(), tenant);
    }
    try (SseClient c = SseClient.open(url(tenant) + "?token=" + token)) {
      assertEquals("reset", c.next().event(), tenant);
    }
  }

  @Test
  void theRightTokenOpensTheStreamPlainOrHashed() throws Exception {
    opens("plain", "plain-tok");
    opens("hashed", "hashed-tok");
    opens("mixed", "mixed-plain");
    opens("mixed", "mixed-hashed");
  }

  @Test
  void missingOrWrongTokensAre401() throws Exception {
    for (String tenant : List.of("plain", "hashed", "mixed")) {
      assertEquals(401, status(tenant, null), tenant);
      assertEquals(401, status(tenant, "nope"), tenant);
    }
    assertEquals(401, status("plain", "plain-to"));
    assertEquals(401, status("plain", "plain-tokk"));
    assertEquals(401, status("hashed", "hashed-to"));
    String stored = "sha256:" + HexFormat.of().formatHex(SseTokens.digest("hashed-tok"));
    assertEquals(401, status("hashed", stored), "the configured hash is not a token");
    assertEquals(401, status("hashed", stored.substring(7)), "nor is its hex");
    SseClient.Reply r = SseClient.get(url("hashed"), Map.of("Authorization", "Bearer nope"));
    assertTrue(new JsonObject(r.body()).getString("error").contains("unknown token"), r.body());
  }

  @Test
  void anotherTenantsTokenIs403WhicheverWayItIsStored() throws Exception {
    assertEquals(403, status("hashed", "plain-tok"), "a plain token of another tenant");
    assertEquals(403, status("plain", "hashed-tok"), "a hashed token of another tenant");
    assertEquals(403, status("plain", "mixed-hashed"));
    assertEquals(403, status("hashed", "mixed-plain"));
    SseClient.Reply r = SseClient.get(url("plain") + "?token=hashed-tok", Map.of());
    assertEquals(403, r.statusCode());
    assertTrue(new JsonObject(r.body()).getString("error").contains("another tenant"), r.body());
  }
}
