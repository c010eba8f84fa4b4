package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** NIP-01, NIP-09, NIP-40 and NIP-45 end to end over real WebSocket frames. */
class RelayProtocolTest {
  static TestRelay relay;

  @BeforeAll
  static void start() throws Exception {
    relay = TestRelay.start();
  }

  @AfterAll
  static void stop() throws Exception {
    relay.close();
  }

  static JsonObject filter() {
    return new JsonObject();
  }

  @Test
  void publishedEventIsQueryableRightAfterOk() throws Exception {
    EventSigner alice = EventSigner.random();
    try (RelayClient c = relay.connect()) {
      JsonObject e = Events.note(alice, "hello \"cairn\"\n\u0001 é 😀", List.of(List.of("t", "hello")));
      JsonArray ok = c.publishAndWait(e);
      assertTrue(ok.getBoolean(2), ok.encode());
      assertEquals("", ok.getString(3));
      List<JsonObject> got = c.query("q", filter().put("ids", new JsonArray().add(e.getString("id"))));
      assertEquals(1, got.size());
      // string for string what was received, so it still verifies
      assertEquals(e, got.get(0));
      JsonArray dup = c.publishAndWait(e);
      assertTrue(dup.getBoolean(2));
      assertTrue(dup.getString(3).startsWith("duplicate:"), dup.encode());
    }
  }

  @Test
  void liveSubscriptionGetsEventsAfterEoseAndCloseStopsThem() throws Exception {
    EventSigner bob = EventSigner.random();
    try (RelayClient sub = relay.connect(); RelayClient pub = relay.connect()) {
      assertEquals(List.of(), sub.query("live", filter().put("authors", new JsonArray().add(bob.pubkey()))));
      JsonObject e1 = Events.note(bob, "one", List.of());
      pub.publishAndWait(e1);
      JsonArray f = sub.await(x -> x.getString(0).equals("EVENT"));
      assertEquals("live", f.getString(1));
      assertEquals(e1.getString("id"), f.getJsonObject(2).getString("id"));
      sub.send(new JsonArray().add("CLOSE").add("live"));
      // a marker REQ answered after the CLOSE proves the CLOSE was handled before the next publish
      sub.query("marker", filter().put("ids", new JsonArray().add("00".repeat(32))));
      pub.publishAndWait(Events.note(bob, "two", List.of()));
      pub.query("sync", filter().put("authors", new JsonArray().add(bob.pubkey())));
      assertNull(sub.poll(Duration.ofMillis(300)), "no event after CLOSE");
    }
  }

  @Test
  void reqWithExistingSubIdReplacesIt() throws Exception {
    EventSigner carol = EventSigner.random();
    try (RelayClient sub = relay.connect(); RelayClient pub = relay.connect()) {
      sub.query("s", filter().put("kinds", new JsonArray().add(7)).put("authors", new JsonArray().add(carol.pubkey())));
      sub.query("s", filter().put("kinds", new JsonArray().add(1)).put("authors", new JsonArray().add(carol.pubkey())));
      pub.publishAndWait(Events.signed(carol, 7, Events.now(), List.of(), "+"));
      JsonObject note = Events.note(carol, "n", List.of());
      pub.publishAndWait(note);
      JsonArray f = sub.await(x -> x.getString(0).equals("EVENT"));
      assertEquals(note.getString("id"), f.getJsonObject(2).getString("id"), "only the replacing filter is live");
    }
  }

  @Test
  void historyIsNewestFirstTiesByLowestIdAndLimitApplies() throws Exception {
    EventSigner dave = EventSigner.random();
    long t = Events.now() - 1000;
    try (RelayClient c = relay.connect()) {
      for (int i = 0; i < 6; i++) {
        // two events per created_at to exercise the tie-break
        c.publishAndWait(Events.signed(dave, 1, t + i / 2, List.of(), "e" + i));
      }
      List<JsonObject> all = c.query("a", filter().put("authors", new JsonArray().add(dave.pubkey())));
      assertEquals(6, all.size());
      for (int i = 1; i < all.size(); i++) {
        JsonObject prev = all.get(i - 1);
        JsonObject cur = all.get(i);
        long pc = prev.getLong("created_at");
        long cc = cur.getLong("created_at");
        assertTrue(pc > cc || (pc == cc && prev.getString("id").compareTo(cur.getString("id")) < 0),
            "order at " + i);
      }
      List<JsonObject> two = c.query("b", filter().put("authors", new JsonArray().add(dave.pubkey())).put("limit", 2));
      assertEquals(all.subList(0, 2), two);
      List<JsonObject> none = c.query("c", filter().put("authors", new JsonArray().add(dave.pubkey())).put("limit", 0));
      assertTrue(none.isEmpty());
      // since/until are inclusive
      List<JsonObject> window = c.query("d", filter().put("authors", new JsonArray().add(dave.pubkey()))
          .put("since", t + 1).put("until", t + 1));
      assertEquals(2, window.size());
    }
  }

  @Test
  void tagFiltersKindsAndUnknownFields() throws Exception {
    EventSigner erin = EventSigner.random();
    String tag = "cairn" + System.nanoTime();
    try (RelayClient c = relay.connect()) {
      JsonObject tagged = Events.signed(erin, 1, Events.now(), List.of(List.of("t", tag), List.of("p", erin.pubkey())), "x");
      JsonObject other = Events.signed(erin, 1, Events.now(), List.of(List.of("t", "other")), "y");
      c.publishAndWait(tagged);
      c.publishAndWait(other);
      List<JsonObject> byTag = c.query("t", filter().put("#t", new JsonArray().add(tag)).put("unknown_field", 42));
      assertEquals(List.of(tagged.getString("id")), byTag.stream().map(x -> x.getString("id")).toList());
      List<JsonObject> byP = c.query("p", filter().put("#p", new JsonArray().add(erin.pubkey())));
      assertEquals(1, byP.size());
      List<JsonObject> byKind = c.query("k", filter().put("kinds", new JsonArray().add(30000 + 1))
          .put("authors", new JsonArray().add(erin.pubkey())));
      assertTrue(byKind.isEmpty());
      // several filters: union
      List<JsonObject> union = c.query("u", filter().put("ids", new JsonArray().add(tagged.getString("id"))),
          filter().put("ids", new JsonArray().add(other.getString("id"))));
      assertEquals(2, union.size());
    }
  }

  @Test
  void countAnswersWithTheSameFilterSemantics() throws Exception {
    EventSigner frank = EventSigner.random();
    try (RelayClient c = relay.connect()) {
      for (int i = 0; i < 3; i++) {
        c.publishAndWait(Events.note(frank, "c" + i, List.of()));
      }
      c.send(new JsonArray().add("COUNT").add("n").add(filter().put("authors", new JsonArray().add(frank.pubkey()))));
      JsonArray count = c.awaitType("COUNT");
      assertEquals("n", count.getString(1));
      assertEquals(3, count.getJsonObject(2).getInteger("count"));
    }
  }

  @Test
  void replaceableAndAddressableKeepOnlyTheNewest() throws Exception {
    EventSigner gina = EventSigner.random();
    long t = Events.now() - 100;
    try (RelayClient c = relay.connect()) {
      JsonObject old = Events.signed(gina, 0, t, List.of(), "{\"name\":\"old\"}");
      JsonObject newer = Events.signed(gina, 0, t + 10, List.of(), "{\"name\":\"new\"}");
      c.publishAndWait(old);
      c.publishAndWait(newer);
      JsonArray stale = c.publishAndWait(Events.signed(gina, 0, t + 5, List.of(), "{\"name\":\"stale\"}"));
      assertTrue(stale.getString(3).startsWith("duplicate:"), stale.encode());
      List<JsonObject> meta = c.query("m", filter().put("kinds", new JsonArray().add(0)).put("authors", new JsonArray().add(gina.pubkey())));
      assertEquals(List.of(newer.getString("id")), meta.stream().map(x -> x.getString("id")).toList());

      JsonObject a1 = Events.signed(gina, 30023, t, List.of(List.of("d", "post-a")), "a v1");
      JsonObject b1 = Events.signed(gina, 30023, t, List.of(List.of("d", "post-b")), "b v1");
      JsonObject a2 = Events.signed(gina, 30023, t + 1, List.of(List.of("d", "post-a")), "a v2");
      c.publishAndWait(a1);
      c.publishAndWait(b1);
      c.publishAndWait(a2);
      Set<String> ids = c.query("ad", filter().put("kinds", new JsonArray().add(30023)).put("authors", new JsonArray().add(gina.pubkey())))
          .stream().map(x -> x.getString("id")).collect(Collectors.toSet());
      assertEquals(Set.of(b1.getString("id"), a2.getString("id")), ids);
    }
  }

  @Test
  void ephemeralEventsAreDispatchedButNeverStored() throws Exception {
    EventSigner hank = EventSigner.random();
    try (RelayClient sub = relay.connect(); RelayClient pub = relay.connect()) {
      sub.query("e", filter().put("kinds", new JsonArray().add(20001)).put("authors", new JsonArray().add(hank.pubkey())));
      JsonObject eph = Events.signed(hank, 20001, Events.now(), List.of(), "typing");
      assertTrue(pub.publishAndWait(eph).getBoolean(2));
      assertEquals(eph.getString("id"), sub.awaitType("EVENT").getJsonObject(2).getString("id"));
      assertTrue(pub.query("h", filter().put("ids", new JsonArray().add(eph.getString("id")))).isEmpty());
    }
  }

  @Test
  void deletionRemovesTheAuthorsEventsAndRefusesLaterCopies() throws Exception {
    EventSigner ivan = EventSigner.random();
    EventSigner mallory = EventSigner.random();
    try (RelayClient c = relay.connect()) {
      JsonObject note = Events.note(ivan, "regret", List.of());
      JsonObject keep = Events.note(ivan, "keep", List.of());
      c.publishAndWait(note);
      c.publishAndWait(keep);
      // someone else's deletion has no effect
      c.publishAndWait(Events.signed(mallory, 5, Events.now(), List.of(List.of("e", keep.getString("id"))), ""));
      assertTrue(c.publishAndWait(Events.signed(ivan, 5, Events.now(), List.of(List.of("e", note.getString("id"))), "")).getBoolean(2));
      Set<String> left = c.query("d", filter().put("kinds", new JsonArray().add(1)).put("authors", new JsonArray().add(ivan.pubkey())))
          .stream().map(x -> x.getString("id")).collect(Collectors.toSet());
      assertEquals(Set.of(keep.getString("id")), left);
      JsonArray again = c.publishAndWait(note);
      assertFalse(again.getBoolean(2));
      assertEquals("blocked: deleted by its author", again.getString(3));

      // a-tag deletion of an addressable event
      JsonObject art = Events.signed(ivan, 30023, Events.now() - 10, List.of(List.of("d", "x")), "article");
      c.publishAndWait(art);
      c.publishAndWait(Events.signed(ivan, 5, Events.now(), List.of(List.of("a", "30023:" + ivan.pubkey() + ":x")), ""));
      assertTrue(c.query("a", filter().put("ids", new JsonArray().add(art.getString("id")))).isEmpty());
    }
  }

  @Test
  void expiredEventsAreRefusedAndNeverReturned() throws Exception {
    EventSigner judy = EventSigner.random();
    try (RelayClient c = relay.connect()) {
      JsonObject expired = Events.signed(judy, 1, Events.now() - 20,
          List.of(List.of("expiration", String.valueOf(Events.now() - 10))), "gone");
      JsonArray ok = c.publishAndWait(expired);
      assertFalse(ok.getBoolean(2));
      assertTrue(ok.getString(3).startsWith("invalid:"), ok.encode());
      JsonObject soon = Events.signed(judy, 1, Events.now(),
          List.of(List.of("expiration", String.valueOf(Events.now() + 2))), "soon gone");
      assertTrue(c.publishAndWait(soon).getBoolean(2));
      assertEquals(1, c.query("s1", filter().put("ids", new JsonArray().add(soon.getString("id")))).size());
      long deadline = System.currentTimeMillis() + 6000;
      List<JsonObject> after;
      do {
        Thread.sleep(250);
        after = c.query("s" + System.nanoTime(), filter().put("ids", new JsonArray().add(soon.getString("id"))));
      } while (!after.isEmpty() && System.currentTimeMillis() < deadline);
      assertTrue(after.isEmpty(), "an expired event is not returned");
    }
  }
}
