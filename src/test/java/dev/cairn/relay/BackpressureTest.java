package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Channels are bounded: with a tiny capacity a publish storm runs the channels out of credit, the
 * sockets are paused instead of buffering, and still every EVENT gets its OK and is stored. The write
 * path as a whole is bounded too: a client that never waits for its OKs does not pile events up
 * before the store.
 */
class BackpressureTest {

  @Test
  void fullChannelsPauseSocketsAndLoseNothing() throws Exception {
    try (TestRelay relay = TestRelay.start(new JsonObject(), Map.of("CAIRN_TREE_CHANNEL_CAPACITY", "2"))) {
      EventSigner a = EventSigner.random();
      int perConn = 300;
      List<RelayClient> clients = new ArrayList<>();
      try {
        for (int c = 0; c < 3; c++) {
          clients.add(relay.connect());
        }
        List<List<JsonObject>> batches = new ArrayList<>();
        for (int c = 0; c < clients.size(); c++) {
          List<JsonObject> batch = new ArrayList<>();
          for (int i = 0; i < perConn; i++) {
            batch.add(Events.note(a, "bp " + c + " " + i, List.of()));
          }
          batches.add(batch);
        }
        for (int c = 0; c < clients.size(); c++) {
          batches.get(c).forEach(clients.get(c)::publish);
        }
        for (int c = 0; c < clients.size(); c++) {
          Set<String> oks = new HashSet<>();
          while (oks.size() < perConn) {
            JsonArray ok = clients.get(c).awaitType("OK");
            assertTrue(ok.getBoolean(2), ok.encode());
            oks.add(ok.getString(1));
          }
        }
        List<JsonObject> stored = clients.get(0).query("all",
            new JsonObject().put("authors", new JsonArray().add(a.pubkey())).put("limit", 5000));
        assertEquals(3 * perConn, stored.size());
        String metrics = TestRelay.http().send(
            HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("cairn_channel_full_total\\{channel=\"[^\"]+\"} ([0-9.E]+)").matcher(metrics);
        double full = 0;
        while (m.find()) {
          full += Double.parseDouble(m.group(1));
        }
        assertTrue(full > 0, "some channel ran out of credit:\n" + metrics);
      } finally {
        clients.forEach(RelayClient::close);
      }
    }
  }

  @Test
  void aClientThatNeverWaitsForItsOksFindsTheWritePathBounded() throws Exception {
    // capacity 2: at most 4 x 2 = 8 events between EVENT and OK, at most 2 more held back at root
    try (TestRelay relay = TestRelay.start(new JsonObject(), Map.of("CAIRN_TREE_CHANNEL_CAPACITY", "2"));
        RelayClient client = relay.connect()) {
      EventSigner a = EventSigner.random();
      int total = 1_500;
      for (int i = 0; i < total; i++) {
        client.publish(Events.note(a, "storm " + i, List.of()));
      }
      double maxInFlight = 0;
      double maxWaiting = 0;
      Set<String> oks = new HashSet<>();
      while (oks.size() < total) {
        if (oks.size() % 100 == 0) {
          String metrics = scrape(relay);
          maxInFlight = Math.max(maxInFlight, gauge(metrics, "cairn_events_in_flight"));
          maxWaiting = Math.max(maxWaiting, gauge(metrics, "cairn_events_waiting_for_room"));
        }
        JsonArray ok = client.awaitType("OK");
        assertTrue(ok.getBoolean(2), ok.encode());
        oks.add(ok.getString(1));
      }
      assertTrue(maxInFlight <= 8, "events on the write path at once: " + maxInFlight);
      assertTrue(maxWaiting <= 2, "events held back at root: " + maxWaiting);
      assertTrue(maxInFlight > 0, "the storm was seen in flight");
      List<JsonObject> stored = client.query("all",
          new JsonObject().put("authors", new JsonArray().add(a.pubkey())).put("limit", 5000));
      assertEquals(total, stored.size());
      assertEquals(0, gauge(scrape(relay), "cairn_events_in_flight"), "nothing left in flight");
    }
  }

  @Test
  void aClientThatFloodsCountsFindsTheReadPathBounded() throws Exception {
    try (TestRelay relay = TestRelay.start(new JsonObject(), Map.of("CAIRN_TREE_CHANNEL_CAPACITY", "2"));
        RelayClient client = relay.connect()) {
      EventSigner a = EventSigner.random();
      for (int i = 0; i < 20; i++) {
        client.publishAndWait(Events.note(a, "counted " + i, List.of()));
      }
      int total = 600;
      JsonObject byAuthor = new JsonObject().put("authors", new JsonArray().add(a.pubkey()));
      for (int i = 0; i < total; i++) {
        client.send(new JsonArray().add("COUNT").add("c" + i).add(byAuthor));
      }
      double maxReads = 0;
      for (int i = 0; i < total; i++) {
        if (i % 50 == 0) {
          maxReads = Math.max(maxReads, gauge(scrape(relay), "cairn_reads_in_flight"));
        }
        JsonArray count = client.awaitType("COUNT");
        assertEquals(20, count.getJsonObject(2).getInteger("count"), count.encode());
      }
      assertTrue(maxReads <= 8, "history reads at once: " + maxReads);
      assertEquals(0, gauge(scrape(relay), "cairn_reads_in_flight"), "no read left in flight");
    }
  }

  private static String scrape(TestRelay relay) throws Exception {
    return TestRelay.http().send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  private static double gauge(String metrics, String name) {
    Matcher m = Pattern.compile("(?m)^" + name + " ([0-9.E]+)$").matcher(metrics);
    assertTrue(m.find(), name + " in\n" + metrics);
    return Double.parseDouble(m.group(1));
  }
}
