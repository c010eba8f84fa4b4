package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The history/live boundary: REQs opened while events are being published get every event exactly
 * once, from history or live, never twice and never missed (seq floor).
 */
class SeqFloorTest {
  private static final int EVENTS = 2000;
  private static final int SUBSCRIBERS = 8;

  private static void awaitOk(RelayClient pub, Set<String> oks) throws InterruptedException {
    JsonArray ok = pub.awaitType("OK");
    assertTrue(ok.getBoolean(2), ok.encode());
    oks.add(ok.getString(1));
  }

  @Test
  void reqsOpenedDuringAPublishStormSeeEveryEventExactlyOnce() throws Exception {
    try (TestRelay relay = TestRelay.start()) {
      EventSigner author = EventSigner.random();
      String tag = "race" + System.nanoTime();
      List<JsonObject> events = new ArrayList<>();
      for (int i = 0; i < EVENTS; i++) {
        events.add(Events.signed(author, 1, Events.now() - EVENTS + i, List.of(List.of("t", tag)), "race " + i));
      }
      JsonObject filter = new JsonObject().put("#t", new JsonArray().add(tag)).put("limit", 5000);

      try (RelayClient pub = relay.connect()) {
        List<RelayClient> subs = new ArrayList<>();
        try {
          CompletableFuture<Void> publishing = CompletableFuture.runAsync(() -> events.forEach(pub::publish));
          // open subscriptions at staggered points of the storm: subscriber k once k/(S+1) of it is stored
          Set<String> oks = new HashSet<>();
          for (int s = 0; s < SUBSCRIBERS; s++) {
            while (oks.size() < (long) EVENTS * s / (SUBSCRIBERS + 1)) {
              awaitOk(pub, oks);
            }
            RelayClient c = relay.connect();
            subs.add(c);
            c.req("s", filter);
          }
          publishing.get();
          while (oks.size() < EVENTS) {
            awaitOk(pub, oks);
          }
          // every REQ's history first (each REQ was sent without waiting for it), so that the sentinel
          // published after them all can only come live
          Set<String> published = new HashSet<>();
          events.forEach(e -> published.add(e.getString("id")));
          List<List<String>> received = new ArrayList<>();
          int sawHistory = 0;
          for (RelayClient c : subs) {
            List<String> ids = new ArrayList<>();
            readUntil(c, ids, "EOSE");
            sawHistory += ids.size();
            received.add(ids);
          }
          JsonObject sentinel = Events.signed(author, 1, Events.now(), List.of(List.of("t", tag)), "sentinel");
          pub.publishAndWait(sentinel);
          for (int i = 0; i < subs.size(); i++) {
            List<String> ids = received.get(i);
            readUntil(subs.get(i), ids, sentinel.getString("id"));
            Set<String> unique = new HashSet<>(ids);
            assertEquals(ids.size(), unique.size(), "an event was delivered twice");
            assertEquals(published, unique, "an event was missed");
          }
          assertTrue(sawHistory > 0, "some events came from history, so the boundary was crossed");
        } finally {
          subs.forEach(RelayClient::close);
        }
      }
    }
  }

  /**
   * Adds the ids of the EVENTs {@code c} gets to {@code ids} until EOSE ({@code until} "EOSE") or the event
   * with id {@code until} (not added); an EOSE while waiting for an event, or a CLOSED, fails.
   */
  private static void readUntil(RelayClient c, List<String> ids, String until) throws InterruptedException {
    while (true) {
      JsonArray f = c.await(x -> x.getString(0).equals("EVENT") || x.getString(0).equals("EOSE")
          || x.getString(0).equals("CLOSED"), Duration.ofSeconds(20));
      if (f.getString(0).equals("CLOSED")) {
        throw new AssertionError("subscription closed: " + f.encode());
      }
      if (f.getString(0).equals("EOSE")) {
        assertEquals("EOSE", until, "a second EOSE, or EOSE after the sentinel was published");
        return;
      }
      String id = f.getJsonObject(2).getString("id");
      if (id.equals(until)) {
        return;
      }
      ids.add(id);
    }
  }
}
