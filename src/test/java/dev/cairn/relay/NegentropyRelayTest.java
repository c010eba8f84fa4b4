package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.negentropy.NegentropyHex;
import dev.cairn.nostr.negentropy.VectorStorage;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** NIP-77 (negentropy) end to end over real WebSocket frames, against the real server. */
class NegentropyRelayTest {
  private static final SecureRandom RANDOM = new SecureRandom();
  static TestRelay relay;
  /** Tight limits: 2 sessions, 10 records. */
  static TestRelay tight;

  @BeforeAll
  static void start() throws Exception {
    relay = TestRelay.start();
    tight = TestRelay.start(new JsonObject().put("limits", new JsonObject()
        .put("negentropy_max_sessions", 2)
        .put("negentropy_max_records", 10)), Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    relay.close();
    tight.close();
  }

  static JsonObject byAuthor(EventSigner s) {
    return new JsonObject().put("authors", new JsonArray().add(s.pubkey()));
  }

  /** An item the relay does not have: a random id (the client's set need not hold real events). */
  static JsonObject foreign(long createdAt) {
    byte[] id = new byte[32];
    RANDOM.nextBytes(id);
    return new JsonObject().put("id", NegentropyHex.encode(id)).put("created_at", createdAt);
  }

  /** Publishes {@code n} notes and waits for every OK (they may come in any order). */
  static List<JsonObject> publish(RelayClient c, EventSigner s, int n, long from) throws Exception {
    List<JsonObject> out = new ArrayList<>();
    Set<String> waiting = new HashSet<>();
    for (int i = 0; i < n; i++) {
      JsonObject e = Events.signed(s, 1, from + i % 17, List.of(), "note " + i);
      c.publish(e);
      out.add(e);
      waiting.add(e.getString("id"));
    }
    while (!waiting.isEmpty()) {
      JsonArray ok = c.await(f -> f.getString(0).equals("OK") && waiting.contains(f.getString(1)));
      assertTrue(ok.getBoolean(2), ok.encode());
      waiting.remove(ok.getString(1));
    }
    return out;
  }

  static Set<String> minus(Set<String> a, Set<String> b) {
    Set<String> out = new HashSet<>(a);
    out.removeAll(b);
    return out;
  }

  @Test
  void bothSidesLearnExactlyTheDifference() throws Exception {
    EventSigner alice = EventSigner.random();
    try (RelayClient c = relay.connect()) {
      List<JsonObject> stored = publish(c, alice, 120, Events.now() - 1000);
      // the client holds 80 of the relay's events and 30 of its own
      List<JsonObject> local = new ArrayList<>(stored.subList(40, 120));
      for (int i = 0; i < 30; i++) {
        local.add(foreign(Events.now() - 1000 + i));
      }
      NegentropySync.Result r = NegentropySync.run(c, "sync", byAuthor(alice), NegentropySync.items(local), 0);
      assertNull(r.error());
      assertEquals(minus(NegentropySync.ids(local), NegentropySync.ids(stored)), r.have());
      assertEquals(minus(NegentropySync.ids(stored), NegentropySync.ids(local)), r.need());
      assertEquals(40, r.need().size());
      assertEquals(30, r.have().size());
    }
  }

  @Test
  void filterSemanticsAreThoseOfReq() throws Exception {
    EventSigner bob = EventSigner.random();
    EventSigner other = EventSigner.random();
    long t = Events.now() - 5000;
    try (RelayClient c = relay.connect()) {
      List<JsonObject> all = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        all.add(Events.signed(bob, i % 3 == 0 ? 7 : 1, t + i * 10, List.of(), "b" + i));
        all.add(Events.signed(other, 1, t + i * 10, List.of(), "o" + i));
      }
      for (JsonObject e : all) {
        assertTrue(c.publishAndWait(e).getBoolean(2));
      }
      JsonObject filter = byAuthor(bob).put("kinds", new JsonArray().add(1)).put("since", t + 20).put("until", t + 90);
      // REQ's answer to the same filter is what the relay has for it
      Set<String> expected = NegentropySync.ids(c.query("req", filter.copy()));
      assertEquals(5, expected.size()); // kind 1 (i not a multiple of 3) with i = 2..9
      NegentropySync.Result r = NegentropySync.run(c, "f", filter, NegentropySync.items(List.of()), 0);
      assertNull(r.error());
      assertEquals(expected, r.need());
      assertEquals(Set.of(), r.have());
    }
  }

  @Test
  void deletedAndReplacedEventsAreNotOffered() throws Exception {
    EventSigner carol = EventSigner.random();
    long t = Events.now() - 100;
    try (RelayClient c = relay.connect()) {
      JsonObject kept = Events.signed(carol, 1, t, List.of(), "kept");
      JsonObject deleted = Events.signed(carol, 1, t + 1, List.of(), "deleted");
      JsonObject oldProfile = Events.signed(carol, 0, t, List.of(), "{}");
      JsonObject newProfile = Events.signed(carol, 0, t + 2, List.of(), "{\"name\":\"carol\"}");
      for (JsonObject e : List.of(kept, deleted, oldProfile, newProfile)) {
        assertTrue(c.publishAndWait(e).getBoolean(2));
      }
      JsonObject deletion = Events.signed(carol, 5, t + 3, List.of(List.of("e", deleted.getString("id"))), "");
      assertTrue(c.publishAndWait(deletion).getBoolean(2));
      NegentropySync.Result r = NegentropySync.run(c, "d", byAuthor(carol), NegentropySync.items(List.of()), 0);
      assertNull(r.error());
      assertEquals(Set.of(kept.getString("id"), newProfile.getString("id"), deletion.getString("id")), r.need());
    }
  }

  @Test
  void explicitLimitPicksTheNewestLikeReq() throws Exception {
    EventSigner dave = EventSigner.random();
    try (RelayClient c = relay.connect()) {
      publish(c, dave, 30, Events.now() - 3000);
      JsonObject filter = byAuthor(dave).put("limit", 7);
      Set<String> expected = NegentropySync.ids(c.query("req", filter.copy()));
      NegentropySync.Result r = NegentropySync.run(c, "l", filter, NegentropySync.items(List.of()), 0);
      assertEquals(7, r.need().size());
      assertEquals(expected, r.need());
    }
  }

  @Test
  void badFilterAndBadHexGetNegErr() throws Exception {
    try (RelayClient c = relay.connect()) {
      c.send("[\"NEG-OPEN\",\"bad\",{\"kinds\":\"x\"},\"61\"]");
      JsonArray err = c.awaitType("NEG-ERR");
      assertEquals("bad", err.getString(1));
      assertTrue(err.getString(2).startsWith("invalid: "), err.encode());

      c.send("[\"NEG-OPEN\",\"hex\",{},\"6zz\"]");
      err = c.awaitType("NEG-ERR");
      assertEquals("hex", err.getString(1));
      assertTrue(err.getString(2).startsWith("invalid: "), err.encode());

      c.send("[\"NEG-OPEN\",\"two\",{},{},\"61\"]");
      err = c.awaitType("NEG-ERR");
      assertEquals("two", err.getString(1));

      // a well-formed hex string that is not a negentropy message
      c.send("[\"NEG-OPEN\",\"proto\",{},\"6100ff\"]");
      err = c.awaitType("NEG-ERR");
      assertEquals("proto", err.getString(1));
      assertTrue(err.getString(2).startsWith("invalid: "), err.encode());

      c.send("[\"NEG-MSG\",\"nothing-open\",\"61\"]");
      err = c.awaitType("NEG-ERR");
      assertTrue(err.getString(2).startsWith("closed: "), err.encode());

      // no usable subscription id: nothing to answer NEG-ERR on
      c.send("[\"NEG-OPEN\",42,{},\"61\"]");
      assertTrue(c.awaitType("NOTICE").getString(1).startsWith("invalid: "));
    }
  }

  @Test
  void unknownMessageTypeGetsANoticeNamingIt() throws Exception {
    try (RelayClient c = relay.connect()) {
      c.send("[\"NEG-FOO\",\"x\"]");
      JsonArray n = c.awaitType("NOTICE");
      assertTrue(n.getString(1).startsWith("invalid: ") && n.getString(1).contains("NEG-FOO"), n.encode());
    }
  }

  @Test
  void negCloseThenNegMsgIsClosed() throws Exception {
    EventSigner erin = EventSigner.random();
    try (RelayClient c = relay.connect()) {
      publish(c, erin, 3, Events.now() - 10);
      c.send(new JsonArray().add("NEG-OPEN").add("s").add(byAuthor(erin)).add(initial()));
      c.awaitType("NEG-MSG");
      c.send(new JsonArray().add("NEG-CLOSE").add("s"));
      c.send(new JsonArray().add("NEG-MSG").add("s").add(initial()));
      JsonArray err = c.awaitType("NEG-ERR");
      assertEquals("s", err.getString(1));
      assertTrue(err.getString(2).startsWith("closed: "), err.encode());
    }
  }

  /** An initial message over an empty set: asks for everything. */
  static String initial() {
    return NegentropyHex.encode(dev.cairn.nostr.negentropy.Negentropy.client(VectorStorage.builder().build())
        .initiate());
  }

  @Test
  void tooManyRecordsIsBlocked() throws Exception {
    EventSigner frank = EventSigner.random();
    try (RelayClient c = tight.connect()) {
      publish(c, frank, 12, Events.now() - 10);
      NegentropySync.Result r = NegentropySync.run(c, "big", byAuthor(frank), NegentropySync.items(List.of()), 0);
      assertTrue(r.error().getString(2).startsWith("blocked: too many records (12 > 10)"), r.error().encode());
      // a narrower window passes, and a limit under the cap too
      r = NegentropySync.run(c, "lim", byAuthor(frank).put("limit", 10), NegentropySync.items(List.of()), 0);
      assertNull(r.error());
      assertEquals(10, r.need().size());
    }
  }

  @Test
  void sessionsPerConnectionAreCapped() throws Exception {
    EventSigner gina = EventSigner.random();
    try (RelayClient c = tight.connect()) {
      publish(c, gina, 2, Events.now() - 10);
      for (String id : List.of("a", "b", "a")) { // the second "a" replaces the first: still 2 sessions
        c.send(new JsonArray().add("NEG-OPEN").add(id).add(byAuthor(gina)).add(initial()));
        assertEquals(id, c.awaitType("NEG-MSG").getString(1));
      }
      awaitSessions(tight, 2);
      c.send(new JsonArray().add("NEG-OPEN").add("c").add(byAuthor(gina)).add(initial()));
      JsonArray err = c.awaitType("NEG-ERR");
      assertEquals("c", err.getString(1));
      assertTrue(err.getString(2).startsWith("blocked: too many open negentropy sessions"), err.encode());
      c.send(new JsonArray().add("NEG-CLOSE").add("b"));
      c.send(new JsonArray().add("NEG-OPEN").add("c").add(byAuthor(gina)).add(initial()));
      assertEquals("c", c.awaitType("NEG-MSG").getString(1));
    }
  }

  /** The sessions gauge settles at {@code n} (closes of earlier tests' connections may still be on their way). */
  static void awaitSessions(TestRelay r, int n) throws InterruptedException {
    String line = "cairn_negentropy_sessions{tenant=\"default\"} " + n + ".0";
    String m = "";
    for (int i = 0; i < 50 && !(m = r.metrics()).contains(line); i++) {
      Thread.sleep(100);
    }
    assertTrue(m.contains(line), m);
  }

  @Test
  void idleSessionsAreClosed() throws Exception {
    JsonObject config = new JsonObject().put("limits", new JsonObject().put("negentropy_idle_timeout", "1s"));
    try (TestRelay idle = TestRelay.start(config, Map.of()); RelayClient c = idle.connect()) {
      c.send(new JsonArray().add("NEG-OPEN").add("idle").add(new JsonObject().put("kinds", new JsonArray().add(9999)))
          .add(initial()));
      c.awaitType("NEG-MSG");
      JsonArray err = c.await(f -> f.getString(0).equals("NEG-ERR"), Duration.ofSeconds(5));
      assertEquals("idle", err.getString(1));
      assertTrue(err.getString(2).startsWith("closed: idle"), err.encode());
    }
  }

  @Test
  void authRequiredRelayRefusesUnauthenticatedSync() throws Exception {
    try (TestRelay auth = TestRelay.start(new JsonObject().put("limits", new JsonObject().put("auth_required", true)),
        Map.of()); RelayClient c = auth.connect()) {
      c.send(new JsonArray().add("NEG-OPEN").add("s").add(new JsonObject()).add(initial()));
      JsonArray err = c.awaitType("NEG-ERR");
      assertTrue(err.getString(2).startsWith("auth-required: "), err.encode());
    }
  }

  @Test
  void reqRateLimitAppliesToNegOpen() throws Exception {
    JsonObject config = new JsonObject().put("policy", new JsonObject().put("rate", new JsonObject()
        .put("reqs_per_ip", new JsonObject().put("per_second", 0.01).put("burst", 1))));
    try (TestRelay limited = TestRelay.start(config, Map.of()); RelayClient c = limited.connect()) {
      c.send(new JsonArray().add("NEG-OPEN").add("one").add(new JsonObject()).add(initial()));
      assertEquals("one", c.awaitType("NEG-MSG").getString(1));
      c.send(new JsonArray().add("NEG-OPEN").add("two").add(new JsonObject()).add(initial()));
      JsonArray err = c.awaitType("NEG-ERR");
      assertTrue(err.getString(2).startsWith("rate-limited: "), err.encode());
    }
  }

  @Test
  void nip11AnnouncesNip77AndItsLimits() throws Exception {
    HttpResponse<String> r = TestRelay.http().send(HttpRequest.newBuilder(URI.create(tight.httpUrl() + "/"))
        .header("Accept", "application/nostr+json").build(), HttpResponse.BodyHandlers.ofString());
    JsonObject doc = new JsonObject(r.body());
    assertTrue(doc.getJsonArray("supported_nips").contains(77));
    JsonObject lim = doc.getJsonObject("limitation");
    assertEquals(2, lim.getInteger("negentropy_max_sessions"));
    assertEquals(10, lim.getInteger("negentropy_max_records"));
    assertEquals(60, lim.getInteger("negentropy_idle_timeout"));
  }
}
