package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The status page's live figures: {@code status.json} reads the real meters, and the page polls it. */
class StatusPageTest {

  private static HttpResponse<String> get(TestRelay r, String path, String accept) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(r.httpUrl() + path));
    if (accept != null) {
      b.header("Accept", accept);
    }
    return TestRelay.http().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonObject figures(TestRelay r, String path) throws Exception {
    HttpResponse<String> res = get(r, path, null);
    assertEquals(200, res.statusCode(), res.body());
    assertTrue(res.headers().firstValue("content-type").orElse("").startsWith("application/json"));
    return new JsonObject(res.body());
  }

  @Test
  void statusJsonFollowsConnectionsSubscriptionsAndStoredEvents() throws Exception {
    JsonObject config = new JsonObject().put("tenants", new JsonArray().add(new JsonObject().put("id", "other")));
    try (TestRelay relay = TestRelay.start(config, Map.of())) {
      JsonObject before = figures(relay, "/status.json");
      assertEquals("default", before.getString("tenant"));
      assertEquals(0L, before.getLong("connections"));
      assertEquals(0L, before.getLong("events_stored_total"));
      for (String key : List.of("events_stored_per_second", "events_received_per_second", "subscriptions",
          "outbox_pending", "feed_retry_buffer_depth", "sse_connections", "ts")) {
        assertTrue(before.getValue(key) instanceof Number, key + " is a number: " + before.encode());
      }
      EventSigner alice = EventSigner.random();
      try (RelayClient c = relay.connect()) {
        for (int i = 0; i < 3; i++) {
          assertTrue(c.publishAndWait(Events.note(alice, "counted " + i, List.of())).getBoolean(2));
        }
        c.req("live", new JsonObject().put("kinds", new JsonArray().add(1)));
        c.awaitType("EOSE");
        JsonObject during = figures(relay, "/status.json");
        assertEquals(1L, during.getLong("connections"), during.encode());
        assertEquals(1L, during.getLong("subscriptions"), during.encode());
        assertEquals(3L, during.getLong("events_stored_total"), during.encode());
        assertEquals(3L, during.getLong("events_received_total"), during.encode());
        assertEquals(3L, during.getJsonObject("events_received").getLong("accepted"), during.encode());
        assertTrue(during.getLong("ts") >= before.getLong("ts"));
        // per tenant: the other tenant saw nothing
        JsonObject other = figures(relay, "/t/other/status.json");
        assertEquals("other", other.getString("tenant"));
        assertEquals(0L, other.getLong("connections"));
        assertEquals(0L, other.getLong("events_stored_total"));
      }
      // The client's close is asynchronous (its Vert.x shuts down in the background); on a loaded CI host
      // the relay has seen it go after more than 5 s (stop 33's mysql-dialect run), so the bound is generous:
      // a connection that is never forgotten still fails here.
      long deadline = System.currentTimeMillis() + 20_000;
      JsonObject after = figures(relay, "/status.json");
      while (after.getLong("connections") != 0 && System.currentTimeMillis() < deadline) {
        Thread.sleep(50);
        after = figures(relay, "/status.json");
      }
      assertEquals(0L, after.getLong("connections"), "the closed connection is gone: " + after.encode());
    }
  }

  @Test
  void statusPageShowsTheFiguresAndPollsThem() throws Exception {
    try (TestRelay relay = TestRelay.start()) {
      HttpResponse<String> page = get(relay, "/", "text/html");
      assertEquals(200, page.statusCode());
      String html = page.body();
      assertTrue(html.contains("id=\"events_stored_per_second\""), html);
      assertTrue(html.contains("id=\"outbox_pending\"") && html.contains("id=\"feed_retry_buffer_depth\""), html);
      assertTrue(html.contains("var statusPath = \"/status.json\""), html);
      assertTrue(html.contains("fetch(statusPath") && html.contains("setInterval(poll, 2000)"), html);
      String tenantPage = get(relay, "/t/default", "text/html").body();
      assertTrue(tenantPage.contains("var statusPath = \"/t/default/status.json\""), tenantPage);
    }
  }
}
