package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** NIP-42 authentication and NIP-70 protected events. */
class Nip42AuthTest {

  private static JsonObject authEvent(EventSigner signer, String challenge, String relayUrl) {
    return Events.signed(signer, 22242, Events.now(),
        List.of(List.of("relay", relayUrl), List.of("challenge", challenge)), "");
  }

  private static JsonArray auth(RelayClient c, JsonObject event) throws InterruptedException {
    c.send(new JsonArray().add("AUTH").add(event));
    return c.await(f -> f.getString(0).equals("OK") && f.getString(1).equals(event.getString("id")));
  }

  @Test
  void protectedEventsAreAcceptedOnlyFromTheirAuthenticatedAuthor() throws Exception {
    try (TestRelay relay = TestRelay.start(); RelayClient c = relay.connect()) {
      EventSigner alice = EventSigner.random();
      EventSigner bob = EventSigner.random();
      JsonObject protectedNote = Events.signed(alice, 1, Events.now(), List.of(List.of("-")), "members only");

      JsonArray refused = c.publishAndWait(protectedNote);
      assertFalse(refused.getBoolean(2));
      assertTrue(refused.getString(3).startsWith("auth-required:"), refused.encode());
      String challenge = c.awaitType("AUTH").getString(1);
      assertEquals(32, challenge.length());

      JsonArray wrong = auth(c, authEvent(alice, "not-the-challenge", relay.wsUrl()));
      assertFalse(wrong.getBoolean(2));
      assertTrue(wrong.getString(3).startsWith("invalid:"), wrong.encode());

      JsonObject forged = authEvent(alice, challenge, relay.wsUrl());
      String sig = forged.getString("sig");
      forged.put("sig", sig.substring(0, 127) + (sig.charAt(127) == '0' ? '1' : '0'));
      assertFalse(auth(c, forged).getBoolean(2), "a forged AUTH does not authenticate");
      assertFalse(c.publishAndWait(protectedNote).getBoolean(2));

      JsonArray ok = auth(c, authEvent(alice, challenge, relay.wsUrl()));
      assertTrue(ok.getBoolean(2), ok.encode());
      assertTrue(c.publishAndWait(protectedNote).getBoolean(2));
      assertEquals(1, c.query("p", new JsonObject().put("ids", new JsonArray().add(protectedNote.getString("id")))).size());

      JsonArray notYours = c.publishAndWait(Events.signed(bob, 1, Events.now(), List.of(List.of("-")), "bob's"));
      assertFalse(notYours.getBoolean(2));
      assertTrue(notYours.getString(3).startsWith("restricted:"), notYours.encode());
    }
  }

  @Test
  void authRequiredRelaysRefuseReadsAndWritesUntilAuthenticated() throws Exception {
    try (TestRelay relay = TestRelay.start(new JsonObject(), Map.of("CAIRN_LIMITS_AUTH_REQUIRED", "true"));
        RelayClient c = relay.connect()) {
      EventSigner alice = EventSigner.random();
      String challenge = c.awaitType("AUTH").getString(1);
      c.req("s", new JsonObject());
      JsonArray closed = c.awaitType("CLOSED");
      assertTrue(closed.getString(2).startsWith("auth-required:"), closed.encode());
      JsonArray refused = c.publishAndWait(Events.note(alice, "hi", List.of()));
      assertTrue(refused.getString(3).startsWith("auth-required:"), refused.encode());

      assertTrue(auth(c, authEvent(alice, challenge, relay.wsUrl())).getBoolean(2));
      assertTrue(c.publishAndWait(Events.note(alice, "hi again", List.of())).getBoolean(2));
      assertEquals(1, c.query("s2", new JsonObject().put("authors", new JsonArray().add(alice.pubkey()))).size());
    }
  }

  @Test
  void anAuthMadeForAnotherRelayOrTenantIsRefused() throws Exception {
    JsonObject config = new JsonObject().put("tenants", new JsonArray()
        .add(new JsonObject().put("id", "a")).add(new JsonObject().put("id", "b")));
    try (TestRelay relay = TestRelay.start(config, Map.of("CAIRN_LIMITS_AUTH_REQUIRED", "true"));
        RelayClient c = relay.connect("/t/a")) {
      EventSigner alice = EventSigner.random();
      String challenge = c.awaitType("AUTH").getString(1);
      for (String other : List.of("wss://evil.example", relay.wsUrl() + "/t/b", relay.wsUrl(),
          "ws://127.0.0.1:" + (relay.port() + 1) + "/t/a", "not a url")) {
        JsonArray refused = auth(c, authEvent(alice, challenge, other));
        assertFalse(refused.getBoolean(2), other + ": " + refused.encode());
        assertTrue(refused.getString(3).startsWith("invalid:"), refused.encode());
      }
      c.req("s", new JsonObject());
      assertTrue(c.awaitType("CLOSED").getString(2).startsWith("auth-required:"), "reads stay locked");
      // the same URL spelled differently (upper-case host, trailing slash) is this relay
      JsonArray ok = auth(c, authEvent(alice, challenge, "WS://127.0.0.1:" + relay.port() + "/t/a/"));
      assertTrue(ok.getBoolean(2), ok.encode());
      assertEquals(0, c.query("s2", new JsonObject().put("kinds", new JsonArray().add(1))).size());
    }
  }

  @Test
  void behindAProxyTheConfiguredPublicUrlIsTheOneToName() throws Exception {
    JsonObject config = new JsonObject().put("relay", new JsonObject().put("public_url", "wss://relay.example.com/"));
    try (TestRelay relay = TestRelay.start(config, Map.of("CAIRN_LIMITS_AUTH_REQUIRED", "true"));
        RelayClient c = relay.connect()) {
      EventSigner alice = EventSigner.random();
      String challenge = c.awaitType("AUTH").getString(1);
      assertFalse(auth(c, authEvent(alice, challenge, relay.wsUrl())).getBoolean(2),
          "the address the proxy connects to is not the relay's public name");
      assertTrue(auth(c, authEvent(alice, challenge, "wss://relay.example.com:443")).getBoolean(2));
    }
  }
}
