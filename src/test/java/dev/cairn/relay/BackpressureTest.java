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
 * sockets are paused instead of buffering, and still every EVENT gets its OK and is stored.
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
}
