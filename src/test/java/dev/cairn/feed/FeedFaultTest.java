package dev.cairn.feed;

import static dev.cairn.feed.FeedSupport.notes;
import static dev.cairn.feed.FeedSupport.publishAll;
import static dev.cairn.feed.FeedSupport.sum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cairn.feed.SseClient.Frame;
import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.RelayClient;
import dev.cairn.relay.TestRelay;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Feed inserts made to fail from outside (a trigger that aborts every insert into the tenant's
 * {@code feed_events}): the Nostr writes still succeed, the retry buffer holds the changes, and once
 * the fault clears every change lands in the buffer's order with nothing dropped. Overfilling the
 * buffer drops per tenant with the right reasons.
 */
@Timeout(120)
class FeedFaultTest {
  private static final EventSigner SIGNER = EventSigner.random();

  private static JsonObject tenants(String... ids) {
    JsonArray a = new JsonArray();
    for (String id : ids) {
      a.add(new JsonObject().put("id", id));
    }
    return new JsonObject().put("tenants", a).put("sse", new JsonObject().put("heartbeat_interval", "300ms"));
  }

  /** Event ids in store commit order: the order in which the failed inserts filled the buffer. */
  private static List<String> commitOrder(TestRelay relay, String tenant) throws Exception {
    if (dev.cairn.relay.TestDialect.mysql()) {
      return dev.cairn.relay.TestDialect.strings(relay.dataDir(), tenant, "SELECT lower(hex(id)) FROM events ORDER BY seq");
    }
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + FeedSupport.tenantDb(relay, tenant));
        Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT lower(hex(id)) FROM events ORDER BY seq")) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  @Test
  void failedInsertsNeverFailTheWriteAndLandInBufferOrderOnceTheFaultClears() throws Exception {
    try (TestRelay relay = TestRelay.start(tenants("faulty"), Map.of());
        RelayClient ws = relay.connect("/t/faulty");
        SseClient sse = SseClient.open(relay.httpUrl() + "/t/faulty/v1/events")) {
      assertEquals("reset", sse.next().event());
      assertEquals("heartbeat", sse.next().event());
      FeedSupport.breakFeed(relay, "faulty");

      List<JsonObject> events = notes(SIGNER, 40, "fault");
      publishAll(ws, events); // every OK is true: the feed never fails the write
      assertEquals(40, commitOrder(relay, "faulty").size());
      // The changes wait in the retry buffer (inserts failed, nothing dropped).
      assertTrue(sum(relay, "cairn_feed_insert_total", "result=\"error\"") >= 40);
      // the last failed insert may still be on its way into the buffer
      awaitAtLeast(relay, 40, "cairn_feed_retry_buffer_depth");
      assertEquals(40, sum(relay, "cairn_feed_retry_buffer_depth"));

      FeedSupport.healFeed(relay, "faulty");
      List<String> fed = new ArrayList<>();
      while (fed.size() < 40) {
        Frame f = sse.await("stored"); // the flush's second wake drains it to the live stream
        fed.add(f.data().getJsonObject("event").getString("id"));
      }
      assertEquals(commitOrder(relay, "faulty"), fed, "in the buffer's order");
      assertEquals(0, sum(relay, "cairn_feed_buffer_drop_total"));
      assertTrue(sum(relay, "cairn_feed_retry_flush_total", "result=\"ok\"") >= 1);
      assertEquals(0, sum(relay, "cairn_feed_retry_buffer_depth"));
    }
  }

  @Test
  void overfillDropsPerTenantWithTheRightReasons() throws Exception {
    JsonObject config = tenants("a", "b").put("feed", new JsonObject()
        .put("buffer", new JsonObject().put("tenant_cap", 5).put("global_cap", 8)));
    try (TestRelay relay = TestRelay.start(config, Map.of())) {
      FeedSupport.breakFeed(relay, "a");
      FeedSupport.breakFeed(relay, "b");
      try (RelayClient a = relay.connect("/t/a")) {
        publishAll(a, notes(SIGNER, 7, "a"));
      }
      awaitAtLeast(relay, 7, "cairn_feed_insert_total", "result=\"error\"");
      assertEquals(2, sum(relay, "cairn_feed_buffer_drop_total", "tenant=\"a\"", "reason=\"tenant_cap\""));
      try (RelayClient b = relay.connect("/t/b")) {
        publishAll(b, notes(SIGNER, 5, "b"));
      }
      awaitAtLeast(relay, 12, "cairn_feed_insert_total", "result=\"error\"");
      // 5 of a + 5 of b > 8: the two oldest entries overall go (a's, unless they were being flushed).
      assertEquals(2, sum(relay, "cairn_feed_buffer_drop_total", "reason=\"global_cap\""));
      assertEquals(0, sum(relay, "cairn_feed_buffer_drop_total", "tenant=\"b\"", "reason=\"tenant_cap\""));
      assertEquals(8, sum(relay, "cairn_feed_retry_buffer_depth"));
      assertEquals(4, sum(relay, "cairn_feed_buffer_drop_total"));
    }
  }

  /** Waits (10 s at most, then fails) until the metric's sum reaches {@code atLeast}. */
  private static void awaitAtLeast(TestRelay relay, long atLeast, String metric, String... labels) throws Exception {
    long deadline = System.currentTimeMillis() + 10_000;
    double now;
    while ((now = sum(relay, metric, labels)) < atLeast) {
      if (System.currentTimeMillis() > deadline) {
        fail(metric + " stayed at " + now + ", expected at least " + atLeast);
      }
      Thread.sleep(20);
    }
  }
}
