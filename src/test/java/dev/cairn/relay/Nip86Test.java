package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * NIP-86 relay management end to end: JSON-RPC over HTTP POST on the relay URL, NIP-98 auth, each
 * change enforced at once on the WebSocket side, shown in NIP-11, and kept across a restart.
 */
class Nip86Test {
  private static final EventSigner ADMIN = EventSigner.random();
  private static final EventSigner CLUB_ADMIN = EventSigner.random();
  private static final EventSigner STRANGER = EventSigner.random();
  private static TestRelay relay;

  @BeforeAll
  static void start() throws Exception {
    relay = TestRelay.start(config(), Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    if (relay != null) {
      relay.close();
    }
  }

  private static JsonObject config() {
    return new JsonObject()
        .put("relay", new JsonObject().put("admin_pubkeys", new JsonArray().add(ADMIN.pubkey())))
        .put("tenants", new JsonArray()
            .add(new JsonObject().put("id", "club").put("admin_pubkeys", new JsonArray().add(CLUB_ADMIN.pubkey())))
            .add(new JsonObject().put("id", "sealed")));
  }

  /** A NIP-98 Authorization header value for a POST of {@code body} to {@code url}. */
  static String auth(EventSigner signer, String url, String body, long createdAt, String method, Integer kind) {
    List<List<String>> tags = new java.util.ArrayList<>(List.of(List.of("u", url), List.of("method", method)));
    if (body != null) {
      tags.add(List.of("payload", sha256(body)));
    }
    String json = signer.sign(createdAt, kind == null ? 27235 : kind, tags, "").jsonText();
    return "Nostr " + Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  static HttpResponse<String> post(TestRelay r, String path, String body, String authorization) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(r.httpUrl() + path))
        .header("Content-Type", "application/nostr+json+rpc")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return TestRelay.http().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A signed call by {@code signer} to the tenant at {@code path}; the parsed response, after checking it is 200. */
  static JsonObject call(TestRelay r, EventSigner signer, String path, String method, Object... params) throws Exception {
    String body = new JsonObject().put("method", method).put("params", new JsonArray(List.of(params))).encode();
    HttpResponse<String> res = post(r, path, body, auth(signer, r.httpUrl() + path, body, Events.now(), "POST", null));
    assertEquals(200, res.statusCode(), res.body());
    assertTrue(res.headers().firstValue("content-type").orElse("").startsWith("application/json"), res.headers().toString());
    return new JsonObject(res.body());
  }

  static JsonObject nip11(TestRelay r, String path) throws Exception {
    HttpResponse<String> res = TestRelay.http().send(HttpRequest.newBuilder(URI.create(r.httpUrl() + path))
        .header("Accept", "application/nostr+json").build(), HttpResponse.BodyHandlers.ofString());
    return new JsonObject(res.body());
  }

  private static JsonArray publish(RelayClient c, EventSigner signer, String content) throws InterruptedException {
    return c.publishAndWait(Events.note(signer, content + " " + System.nanoTime(), List.of()));
  }

  @Test
  void banpubkeyRefusesTheirEventsAtOnceAndListsThem() throws Exception {
    EventSigner spammer = EventSigner.random();
    try (RelayClient c = relay.connect()) {
      assertTrue(publish(c, spammer, "before the ban").getBoolean(2));

      JsonObject res = call(relay, ADMIN, "/", "banpubkey", spammer.pubkey(), "spam");
      assertEquals(Boolean.TRUE, res.getValue("result"), res.encode());
      assertNull(res.getValue("error"));

      JsonArray refused = publish(c, spammer, "after the ban");
      assertFalse(refused.getBoolean(2), refused.encode());
      assertTrue(refused.getString(3).startsWith("blocked:"), refused.encode());
      assertTrue(publish(c, STRANGER, "others still write").getBoolean(2));

      JsonArray banned = call(relay, ADMIN, "/", "listbannedpubkeys").getJsonArray("result");
      assertTrue(banned.contains(new JsonObject().put("pubkey", spammer.pubkey()).put("reason", "spam")), banned.encode());

      assertEquals(Boolean.TRUE, call(relay, ADMIN, "/", "unbanpubkey", spammer.pubkey()).getValue("result"));
      assertTrue(publish(c, spammer, "after the unban").getBoolean(2));
      assertFalse(call(relay, ADMIN, "/", "listbannedpubkeys").encode().contains(spammer.pubkey()));
    }
  }

  @Test
  void allowpubkeyTurnsTheTenantIntoAnAllowlistOfItsOwn() throws Exception {
    EventSigner member = EventSigner.random();
    try (RelayClient club = relay.connect("/t/club"); RelayClient main = relay.connect()) {
      assertTrue(publish(club, STRANGER, "open for now").getBoolean(2));
      JsonObject res = call(relay, CLUB_ADMIN, "/t/club", "allowpubkey", member.pubkey(), "paid");
      assertEquals(Boolean.TRUE, res.getValue("result"), res.encode());

      assertTrue(publish(club, member, "member writes").getBoolean(2));
      JsonArray refused = publish(club, STRANGER, "stranger does not");
      assertFalse(refused.getBoolean(2));
      assertTrue(refused.getString(3).startsWith("restricted:"), refused.encode());
      assertTrue(publish(main, STRANGER, "the default tenant has no allowlist").getBoolean(2));

      JsonArray allowed = call(relay, CLUB_ADMIN, "/t/club", "listallowedpubkeys").getJsonArray("result");
      assertEquals(new JsonArray().add(new JsonObject().put("pubkey", member.pubkey()).put("reason", "paid")), allowed);
      // the operator (relay.admin_pubkeys) manages every tenant too
      assertEquals(1, call(relay, ADMIN, "/t/club", "listallowedpubkeys").getJsonArray("result").size());

      assertEquals(Boolean.TRUE, call(relay, CLUB_ADMIN, "/t/club", "unallowpubkey", member.pubkey()).getValue("result"));
      assertTrue(publish(club, STRANGER, "open again").getBoolean(2));
    }
  }

  @Test
  void baneventRefusesThatEventAndAlloweventLiftsIt() throws Exception {
    JsonObject event = Events.note(STRANGER, "this one gets banned " + System.nanoTime(), List.of());
    String id = event.getString("id");
    try (RelayClient c = relay.connect()) {
      assertEquals(Boolean.TRUE, call(relay, ADMIN, "/", "banevent", id, "illegal").getValue("result"));
      JsonArray refused = c.publishAndWait(event);
      assertFalse(refused.getBoolean(2));
      assertTrue(refused.getString(3).startsWith("blocked:"), refused.encode());
      assertTrue(call(relay, ADMIN, "/", "listbannedevents").getJsonArray("result")
          .contains(new JsonObject().put("id", id).put("reason", "illegal")));

      assertEquals(Boolean.TRUE, call(relay, ADMIN, "/", "allowevent", id).getValue("result"));
      assertTrue(c.publishAndWait(event).getBoolean(2));
    }
  }

  @Test
  void changedNameDescriptionAndIconShowInNip11AtOnce() throws Exception {
    assertTrue(nip11(relay, "/t/sealed").getJsonArray("supported_nips").contains(86));
    call(relay, ADMIN, "/t/sealed", "changerelayname", "Sealed Relay");
    call(relay, ADMIN, "/t/sealed", "changerelaydescription", "renamed over NIP-86");
    call(relay, ADMIN, "/t/sealed", "changerelayicon", "https://example.com/icon.png");
    JsonObject doc = nip11(relay, "/t/sealed");
    assertEquals("Sealed Relay", doc.getString("name"));
    assertEquals("renamed over NIP-86", doc.getString("description"));
    assertEquals("https://example.com/icon.png", doc.getString("icon"));
    String page = TestRelay.http().send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/t/sealed")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    assertTrue(page.contains("<h1>Sealed Relay</h1>"), page);
    assertFalse(nip11(relay, "/").getString("name").equals("Sealed Relay"), "only that tenant is renamed");

    JsonObject bad = call(relay, ADMIN, "/t/sealed", "changerelayicon", "javascript:alert(1)");
    assertNull(bad.getValue("result"));
    assertTrue(bad.getString("error").contains("http(s) URL"), bad.encode());
  }

  @Test
  void supportedmethodsListsTheOthers() throws Exception {
    JsonArray methods = call(relay, ADMIN, "/", "supportedmethods").getJsonArray("result");
    for (String m : List.of("banpubkey", "listbannedpubkeys", "allowpubkey", "listallowedpubkeys", "banevent",
        "allowevent", "listbannedevents", "changerelayname", "changerelaydescription", "unbanpubkey")) {
      assertTrue(methods.contains(m), m + " missing from " + methods);
    }
  }

  @Test
  void unknownMethodsAndBadParamsAreJsonRpcErrors() throws Exception {
    JsonObject unknown = call(relay, ADMIN, "/", "allowkind", 1);
    assertTrue(unknown.containsKey("result") && unknown.getValue("result") == null, unknown.encode());
    assertTrue(unknown.getString("error").contains("unknown method"), unknown.encode());

    JsonObject badKey = call(relay, ADMIN, "/", "banpubkey", "not-a-pubkey");
    assertNull(badKey.getValue("result"));
    assertTrue(badKey.getString("error").contains("64 hex"), badKey.encode());

    String malformed = "{\"method\": \"banpubkey\", \"params\": [";
    HttpResponse<String> res = post(relay, "/", malformed, auth(ADMIN, relay.httpUrl() + "/", malformed, Events.now(), "POST", null));
    assertEquals(400, res.statusCode(), res.body());
    JsonObject err = new JsonObject(res.body());
    assertTrue(err.containsKey("result") && err.getValue("result") == null && err.getString("error") != null, res.body());
  }

  @Test
  void badOrMissingAuthIs401AndANonAdminIs403() throws Exception {
    String body = new JsonObject().put("method", "banpubkey").put("params", new JsonArray().add(STRANGER.pubkey())).encode();
    String url = relay.httpUrl() + "/";
    long now = Events.now();
    Map<String, String> cases = new java.util.LinkedHashMap<>();
    cases.put("wrong u tag (another tenant's URL)", auth(ADMIN, relay.httpUrl() + "/t/club", body, now, "POST", null));
    cases.put("wrong u tag (another host)", auth(ADMIN, "http://example.com:" + relay.port() + "/", body, now, "POST", null));
    cases.put("stale created_at", auth(ADMIN, url, body, now - 120, "POST", null));
    cases.put("created_at in the future", auth(ADMIN, url, body, now + 120, "POST", null));
    cases.put("wrong payload hash", auth(ADMIN, url, body + " ", now, "POST", null));
    cases.put("no payload tag", auth(ADMIN, url, null, now, "POST", null));
    cases.put("method tag GET", auth(ADMIN, url, body, now, "GET", null));
    cases.put("wrong kind", auth(ADMIN, url, body, now, "POST", 27236));
    cases.put("not base64", "Nostr %%%");
    cases.put("another scheme", "Bearer " + auth(ADMIN, url, body, now, "POST", null).substring(6));
    String good = auth(ADMIN, url, body, now, "POST", null);
    JsonObject forged = new JsonObject(new String(Base64.getDecoder().decode(good.substring(6)), StandardCharsets.UTF_8));
    String sig = forged.getString("sig");
    forged.put("sig", sig.substring(0, 127) + (sig.charAt(127) == '0' ? '1' : '0'));
    cases.put("forged signature", "Nostr " + Base64.getEncoder().encodeToString(forged.encode().getBytes(StandardCharsets.UTF_8)));
    cases.put("no header", null);
    for (Map.Entry<String, String> c : cases.entrySet()) {
      HttpResponse<String> res = post(relay, "/", body, c.getValue());
      assertEquals(401, res.statusCode(), c.getKey() + ": " + res.body());
      JsonObject err = new JsonObject(res.body());
      assertTrue(err.getString("error").startsWith("unauthorized:"), c.getKey() + ": " + res.body());
    }
    HttpResponse<String> notAdmin = post(relay, "/", body, auth(STRANGER, url, body, now, "POST", null));
    assertEquals(403, notAdmin.statusCode(), notAdmin.body());
    HttpResponse<String> otherTenantsAdmin = post(relay, "/", body, auth(CLUB_ADMIN, url, body, now, "POST", null));
    assertEquals(403, otherTenantsAdmin.statusCode(), "a tenant's admin is not the default tenant's: " + otherTenantsAdmin.body());
    assertFalse(call(relay, ADMIN, "/", "listbannedpubkeys").encode().contains(STRANGER.pubkey()), "nothing was banned");

    HttpResponse<String> wrongType = TestRelay.http().send(HttpRequest.newBuilder(URI.create(url))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(415, wrongType.statusCode(), wrongType.body());
  }

  @Test
  void behindAProxyTheUTagNamesThePublicUrl() throws Exception {
    JsonObject config = config();
    config.getJsonObject("relay").put("public_url", "wss://relay.example.com/");
    try (TestRelay proxied = TestRelay.start(config, Map.of())) {
      String body = new JsonObject().put("method", "supportedmethods").put("params", new JsonArray()).encode();
      HttpResponse<String> pub = post(proxied, "/", body,
          auth(ADMIN, "https://relay.example.com/", body, Events.now(), "POST", null));
      assertEquals(200, pub.statusCode(), pub.body());
      HttpResponse<String> tenant = post(proxied, "/t/club", body,
          auth(CLUB_ADMIN, "https://relay.example.com/t/club", body, Events.now(), "POST", null));
      assertEquals(200, tenant.statusCode(), tenant.body());
      HttpResponse<String> internal = post(proxied, "/", body,
          auth(ADMIN, proxied.httpUrl() + "/", body, Events.now(), "POST", null));
      assertEquals(401, internal.statusCode(), internal.body());
      assertTrue(internal.body().contains("https://relay.example.com"), "the error names the expected URL: " + internal.body());
    }
  }

  @Test
  void anOversizedBodyIs413AndAPreflightAllowsAuthorization() throws Exception {
    String body = "{\"method\":\"banpubkey\",\"params\":[\"" + "x".repeat(70_000) + "\"]}";
    HttpResponse<String> res = post(relay, "/", body, auth(ADMIN, relay.httpUrl() + "/", body, Events.now(), "POST", null));
    assertEquals(413, res.statusCode(), res.body());
    HttpResponse<String> preflight = TestRelay.http().send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/"))
        .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(204, preflight.statusCode());
    assertTrue(preflight.headers().firstValue("access-control-allow-methods").orElse("").contains("POST"));
    assertTrue(preflight.headers().firstValue("access-control-allow-headers").orElse("").contains("Authorization"));
  }

  @Test
  void changesSurviveARestart() throws Exception {
    Path data = Files.createTempDirectory("cairn-nip86");
    EventSigner banned = EventSigner.random();
    JsonObject bannedEvent = Events.note(STRANGER, "banned before the restart " + System.nanoTime(), List.of());
    try {
      TestRelay first = TestRelay.startOn(data, config());
      try {
        call(first, ADMIN, "/", "banpubkey", banned.pubkey(), "kept");
        call(first, ADMIN, "/", "banevent", bannedEvent.getString("id"));
        call(first, CLUB_ADMIN, "/t/club", "changerelayname", "Club after restart");
      } finally {
        first.stop();
      }
      TestRelay second = TestRelay.startOn(data, config());
      try (RelayClient c = second.connect()) {
        JsonArray refused = publish(c, banned, "still banned");
        assertFalse(refused.getBoolean(2), refused.encode());
        assertTrue(refused.getString(3).startsWith("blocked:"), refused.encode());
        assertFalse(c.publishAndWait(bannedEvent).getBoolean(2), "the banned event stays banned");
        assertEquals("Club after restart", nip11(second, "/t/club").getString("name"));
        assertTrue(call(second, ADMIN, "/", "listbannedpubkeys").getJsonArray("result")
            .contains(new JsonObject().put("pubkey", banned.pubkey()).put("reason", "kept")));
      } finally {
        second.stop();
      }
    } finally {
      TestRelay.deleteTree(data);
    }
  }
}
