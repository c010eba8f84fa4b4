package dev.cairn.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.Events;
import dev.cairn.relay.RelayClient;
import dev.cairn.relay.TestDialect;
import dev.cairn.relay.TestRelay;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** outbox.backend=db end to end: the real server, events over WebSocket, handlers with the ledger. */
class DbBackendTest {
  static final HttpClient HTTP = HttpClient.newHttpClient();

  static JsonObject config(String upstream, int maxAttempts) {
    return new JsonObject()
        .put("outbox", new JsonObject().put("backend", "db").put("max_attempts", maxAttempts))
        .put("forward", new JsonObject().put("relays", new JsonArray().add(upstream)));
  }

  /** 30 notes, every third one about bananas: their ids, and the bananas' ids. */
  private static List<List<String>> publishNotes(RelayClient client, EventSigner signer) throws Exception {
    List<String> ids = new ArrayList<>();
    List<String> bananas = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String content = (i % 3 == 0 ? "a ripe Banana split " : "plain apple pie ") + i;
      JsonObject ev = Events.note(signer, content, List.of());
      assertTrue(client.publishAndWait(ev).getBoolean(2));
      ids.add(ev.getString("id"));
      if (i % 3 == 0) {
        bananas.add(ev.getString("id"));
      }
    }
    return List.of(ids, bananas);
  }

  /** Every row done, every event forwarded once with one done ledger row for the external handler. */
  private static void assertForwardedOnce(Path db, FakeUpstream upstream, List<String> ids) throws Exception {
    OutboxDb.await("every outbox row done", 30,
        () -> OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'done'") == ids.size());
    for (String id : ids) {
      assertEquals(1, upstream.count(id), "forwarded exactly once: " + id);
    }
    assertEquals(ids.size(), OutboxDb.count(db, "SELECT COUNT(*) FROM processed_events WHERE handler = 'forward'"
        + " AND status = 'done'"), "one done ledger row per event for the external handler");
  }

  /** The forward/ledger half of {@link #everyStoredEventIsSearchableAndForwardedOnce}, on both dialects. */
  @Test
  void everyStoredEventIsForwardedOnce() throws Exception {
    EventSigner alice = EventSigner.random();
    try (FakeUpstream upstream = new FakeUpstream(false);
        TestRelay relay = TestRelay.start(config(upstream.url(), 10), Map.of());
        RelayClient client = relay.connect()) {
      Path db = OutboxDb.tenantDb(relay.dataDir(), "default");
      List<String> ids = publishNotes(client, alice).get(0);
      assertForwardedOnce(db, upstream, ids);
      String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertTrue(metrics.contains("cairn_outbox_published_total{backend=\"db\"} 30.0"), metrics);
      assertTrue(metrics.contains("cairn_handler_runs_total{handler=\"forward\",result=\"ok\"}"));
    }
  }

  @Test
  void everyStoredEventIsSearchableAndForwardedOnce() throws Exception {
    Assumptions.assumeFalse(TestDialect.mysql(), OutboxDb.NO_MYSQL_SEARCH);
    EventSigner alice = EventSigner.random();
    try (FakeUpstream upstream = new FakeUpstream(false);
        TestRelay relay = TestRelay.start(config(upstream.url(), 10), Map.of());
        RelayClient client = relay.connect()) {
      Path db = OutboxDb.tenantDb(relay.dataDir(), "default");
      List<List<String>> published = publishNotes(client, alice);
      List<String> bananas = published.get(1);
      assertForwardedOnce(db, upstream, published.get(0));
      OutboxDb.await("the search handler applied every row", 30, () -> OutboxDb.searchCaughtUp(db));
      // NIP-50 through the REQ path, answered from the FTS index the search handler keeps.
      List<JsonObject> found = client.query("s1", new JsonObject().put("search", "banana"));
      assertEquals(Set.copyOf(bananas), found.stream().map(e -> e.getString("id")).collect(Collectors.toSet()));
      assertEquals(10, client.query("s2", new JsonObject().put("search", "SPLIT ripe")).size());
      assertEquals(0, client.query("s3", new JsonObject().put("search", "cherry")).size());
      assertEquals(1, client.query("s4", new JsonObject().put("search", "banana").put("limit", 1)).size());
      // A NIP-09 deletion removes it from the index through EventDeleted.
      JsonObject del = Events.signed(alice, 5, Events.now(), List.of(List.of("e", bananas.get(0))), "");
      assertTrue(client.publishAndWait(del).getBoolean(2));
      OutboxDb.await("EventDeleted handled", 30, () -> OutboxDb.count(db,
          "SELECT COUNT(*) FROM event_queue WHERE type = 'EventDeleted' AND status = 'done'") == 1
          && OutboxDb.searchCaughtUp(db));
      assertEquals(9, client.query("s5", new JsonObject().put("search", "banana")).size());
      assertEquals(9, OutboxDb.count(OutboxDb.searchDb(db), "SELECT COUNT(*) FROM search_fts WHERE search_fts MATCH 'banana'"));
      // NIP-11 lists 50 now that search works.
      JsonObject nip11 = new JsonObject(HTTP.send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/"))
          .header("Accept", "application/nostr+json").build(), HttpResponse.BodyHandlers.ofString()).body());
      assertTrue(nip11.getJsonArray("supported_nips").contains(50));
      String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertTrue(metrics.contains("cairn_outbox_published_total{backend=\"db\"} 32.0"), metrics);
      assertTrue(metrics.contains("cairn_handler_runs_total{handler=\"forward\",result=\"ok\"}"));
    }
  }

  /**
   * The default: outbox.backend=db with nothing to forward. The rows are written done with their events (no
   * claim transaction after each write), counted as published, and the search handler still follows them.
   */
  @Test
  void withNothingToDeliverOutsideTheDbRowsAreWrittenDone() throws Exception {
    Assumptions.assumeFalse(TestDialect.mysql(), OutboxDb.NO_MYSQL_SEARCH);
    EventSigner alice = EventSigner.random();
    try (TestRelay relay = TestRelay.start(new JsonObject(), Map.of());
        RelayClient client = relay.connect()) {
      Path db = OutboxDb.tenantDb(relay.dataDir(), "default");
      List<String> bananas = publishNotes(client, alice).get(1);
      // checked right after the last OK: no consumer had to come by
      assertEquals(30, OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'done'"));
      assertEquals(0, OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status <> 'done'"));
      OutboxDb.await("the search handler applied every row", 30, () -> OutboxDb.searchCaughtUp(db));
      List<JsonObject> found = client.query("s1", new JsonObject().put("search", "banana"));
      assertEquals(Set.copyOf(bananas), found.stream().map(e -> e.getString("id")).collect(Collectors.toSet()));
      String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertTrue(metrics.contains("cairn_outbox_published_total{backend=\"db\"} 30.0"), metrics);
      assertTrue(metrics.contains("cairn_outbox_pending 0.0"), metrics);
    }
  }

  /**
   * Written-done rows still age out: done rows past the 30-day retention go (the first chance after a
   * start, then at most hourly), a dead-lettered one stays for the operator.
   */
  @Test
  void doneRowsPastTheirRetentionArePruned() throws Exception {
    Assumptions.assumeFalse(TestDialect.mysql(), "SQLite's rows written done");
    EventSigner alice = EventSigner.random();
    Path dir = java.nio.file.Files.createTempDirectory("cairn-prune");
    try {
      Path db = OutboxDb.tenantDb(dir, "default");
      try (TestRelay relay = TestRelay.startOn(dir, new JsonObject());
          RelayClient client = relay.connect()) {
        assertTrue(client.publishAndWait(Events.note(alice, "a note", List.of())).getBoolean(2));
      }
      long old = System.currentTimeMillis() - 31L * 24 * 3600 * 1000;
      assertEquals(3, OutboxDb.update(db, "INSERT INTO event_queue(event_id, type, body, status, attempts,"
          + " available_at, created_at) VALUES ('old-1', 'EventDeleted', '{}', 'done', 0, " + old + ", " + old + "),"
          + " ('old-2', 'EventDeleted', '{}', 'done', 0, " + old + ", " + old + "),"
          + " ('old-3', 'EventDeleted', '{}', 'dead_lettered', 1, " + old + ", " + old + ")"));
      try (TestRelay relay = TestRelay.startOn(dir, new JsonObject());
          RelayClient client = relay.connect()) {
        assertTrue(client.publishAndWait(Events.note(alice, "a fresh note", List.of())).getBoolean(2));
        OutboxDb.await("the old done rows pruned", 30,
            () -> OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE event_id LIKE 'old-%'") == 1);
        assertEquals(1, OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE event_id = 'old-3'"),
            "a dead-lettered row stays for the operator");
        assertEquals(2, OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE event_id NOT LIKE 'old-%'"),
            "recent done rows stay");
      }
    } finally {
      TestRelayDirs.delete(dir);
    }
  }

  @Test
  void aHandlerThatKeepsFailingIsDeadLetteredWhileTheOthersStillRun() throws Exception {
    EventSigner bob = EventSigner.random();
    try (FakeUpstream refusing = new FakeUpstream(true);
        TestRelay relay = TestRelay.start(config(refusing.url(), 2), Map.of());
        RelayClient client = relay.connect()) {
      Path db = OutboxDb.tenantDb(relay.dataDir(), "default");
      JsonObject ev = Events.note(bob, "durian smoothie", List.of());
      assertTrue(client.publishAndWait(ev).getBoolean(2));
      // attempt 1 fails, retry after 5 s, attempt 2 (the last of max_attempts=2) fails: dead-lettered.
      OutboxDb.await("row dead-lettered", 30,
          () -> OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'dead_lettered'") == 1);
      OutboxDb.Row row = OutboxDb.rows(db).get(0);
      assertEquals(2, row.attempts());
      assertEquals(2, refusing.count(ev.getString("id")), "the failing handler ran once per attempt");
      // search: SQLite only (OutboxDb.NO_MYSQL_SEARCH); the dead-letter path above and below runs on both
      boolean search = !TestDialect.mysql();
      if (search) {
        // The search handler applied the row (its cursor is independent of the failing handler's retries).
        OutboxDb.await("the search handler applied the row", 30, () -> OutboxDb.searchCaughtUp(db));
        assertEquals(1, OutboxDb.count(OutboxDb.searchDb(db), "SELECT COUNT(*) FROM search_fts WHERE search_fts MATCH 'durian'"));
      }
      assertEquals(0, OutboxDb.count(db, "SELECT COUNT(*) FROM processed_events WHERE handler = 'forward'"),
          "a failed run releases its ledger claim");
      if (search) {
        assertEquals(1, client.query("s", new JsonObject().put("search", "durian")).size());
      }
      // Other events still go through.
      JsonObject ok = Events.note(bob, "second", List.of());
      assertTrue(client.publishAndWait(ok).getBoolean(2));
      if (search) {
        OutboxDb.await("search ran for the second event", 30, () -> OutboxDb.searchCaughtUp(db)
            && OutboxDb.count(OutboxDb.searchDb(db), "SELECT COUNT(*) FROM search_fts WHERE search_fts MATCH 'second'") == 1);
        assertEquals(1, client.query("s2", new JsonObject().put("search", "second")).size());
      }
      // the second event's row is claimed and its forward attempted (it too is refused, so it waits to retry)
      OutboxDb.await("the second event's forward was tried", 30, () -> refusing.count(ok.getString("id")) >= 1);
      String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertTrue(metrics.contains("cairn_outbox_dead_lettered_total 1.0"), metrics);
    }
  }
}
