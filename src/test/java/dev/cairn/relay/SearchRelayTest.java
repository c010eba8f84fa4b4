package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * NIP-50 through REQ and COUNT on either dialect (SQLite's FTS5 index kept by the outbox search
 * handler, or MySQL's FULLTEXT search_docs written with the events): every word must match, case and
 * short words and stopwords as on SQLite, a deleted event leaves the results, a search filter next to
 * a plain one.
 */
class SearchRelayTest {
  @Test
  void searchFindsTheWordsAndForgetsDeletedEvents() throws Exception {
    EventSigner alice = EventSigner.random();
    try (TestRelay relay = TestRelay.start(); RelayClient client = relay.connect()) {
      List<String> bananas = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        String content = (i % 3 == 0 ? "a ripe Banana split " : "the plain apple pie ") + i;
        JsonObject ev = Events.note(alice, content, List.of());
        assertTrue(client.publishAndWait(ev).getBoolean(2));
        if (i % 3 == 0) {
          bananas.add(ev.getString("id"));
        }
      }
      // SQLite's index follows the commit on its own thread: wait for it (MySQL's is there at once).
      awaitCount(client, "banana", 10);
      List<JsonObject> found = client.query("s1", new JsonObject().put("search", "banana"));
      assertEquals(Set.copyOf(bananas), found.stream().map(e -> e.getString("id")).collect(Collectors.toSet()));
      assertEquals(10, client.query("s2", new JsonObject().put("search", "SPLIT ripe")).size());
      assertEquals(10, client.query("s3", new JsonObject().put("search", "a ripe")).size(), "a one-letter word");
      assertEquals(20, client.query("s4", new JsonObject().put("search", "the apple")).size(), "a stopword");
      assertEquals(0, client.query("s5", new JsonObject().put("search", "cherry")).size());
      assertEquals(0, client.query("s6", new JsonObject().put("search", "banana apple")).size(), "every word");
      assertEquals(1, client.query("s7", new JsonObject().put("search", "banana").put("limit", 1)).size());
      assertEquals(11, client.query("s8", new JsonObject().put("search", "banana"),
          new JsonObject().put("ids", new JsonArray().add(found.get(0).getString("id")))
              .put("search", "split")).size() + 1, "a second filter adds nothing new");
      assertEquals(10, count(client, "c1", "BANANA"));

      // A NIP-09 deletion takes the event out of the results.
      JsonObject del = Events.signed(alice, 5, Events.now(), List.of(List.of("e", bananas.get(0))), "");
      assertTrue(client.publishAndWait(del).getBoolean(2));
      awaitCount(client, "banana", 9);
      assertEquals(9, client.query("s9", new JsonObject().put("search", "banana")).size());
    }
  }

  private static long count(RelayClient client, String subId, String search) throws InterruptedException {
    client.send(new JsonArray().add("COUNT").add(subId).add(new JsonObject().put("search", search)));
    JsonArray reply = client.await(f -> subId.equals(f.getValue(1)));
    assertEquals("COUNT", reply.getString(0), reply.encode());
    return reply.getJsonObject(2).getLong("count");
  }

  private static void awaitCount(RelayClient client, String search, long expected) throws Exception {
    long deadline = System.nanoTime() + 30_000_000_000L;
    long last = -1;
    for (int n = 0; System.nanoTime() < deadline; n++) {
      last = count(client, "w" + n, search);
      if (last == expected) {
        return;
      }
      Thread.sleep(100);
    }
    assertEquals(expected, last, "search \"" + search + "\" after 30 s");
  }
}
