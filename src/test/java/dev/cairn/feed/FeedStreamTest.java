package dev.cairn.feed;

import static dev.cairn.feed.FeedSupport.notes;
import static dev.cairn.feed.FeedSupport.publishAll;
import static dev.cairn.feed.FeedSupport.sum;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.feed.SseClient.Frame;
import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.Events;
import dev.cairn.relay.RelayClient;
import dev.cairn.relay.TestRelay;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The change feed over SSE end to end (CONTRACT section 4), with a real server and a real HTTP
 * client reading the stream. Each test has its own tenant.
 */
@Timeout(120)
class FeedStreamTest {
  private static TestRelay relay;
  private static final EventSigner ALICE = EventSigner.random();
  private static final EventSigner BOB = EventSigner.random();

  @BeforeAll
  static void start() throws Exception {
    JsonArray tenants = new JsonArray();
    for (String t : List.of("resume", "backlog", "resets", "del", "narrow", "idle")) {
      tenants.add(new JsonObject().put("id", t));
    }
    tenants.add(new JsonObject().put("id", "secure").put("sse", new JsonObject().put("tokens", new JsonArray().add("s3cret"))));
    tenants.add(new JsonObject().put("id", "other").put("sse", new JsonObject().put("tokens", new JsonArray().add("othertok"))));
    relay = TestRelay.start(new JsonObject()
        .put("sse", new JsonObject().put("heartbeat_interval", "300ms"))
        .put("store", new JsonObject().put("expiry_sweep_interval", "300ms"))
        .put("tenants", tenants), Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    relay.close();
  }

  private static String url(String tenant, String query) {
    return relay.httpUrl() + "/t/" + tenant + "/v1/events" + (query.isEmpty() ? "" : "?" + query);
  }

  /** Stored frames of a stream until {@code n} were read; other frames go to {@code others}. */
  private static List<Frame> stored(SseClient c, int n, List<Frame> others) throws InterruptedException {
    List<Frame> out = new ArrayList<>();
    while (out.size() < n) {
      Frame f = c.next();
      if (f.event().equals("stored")) {
        out.add(f);
      } else if (others != null) {
        others.add(f);
      }
    }
    return out;
  }

  /**
   * The feed row lands after the write's OK (by design): waits until the feed holds seq {@code n},
   * by reading a stream, so a test can rely on the feed's high seq.
   */
  private static void awaitFeed(String tenant, long n) throws Exception {
    try (SseClient c = SseClient.open(url(tenant, "since=" + (n - 1)))) {
      c.await(f -> f.event().equals("stored") || f.event().equals("deleted"), null);
    }
  }

  @Test
  void resumeByLastEventIdAcross10kEventsHasNoGapAndNoDuplicate() throws Exception {
    List<JsonObject> events = notes(ALICE, 10_000, "resume");
    try (RelayClient ws = relay.connect("/t/resume")) {
      publishAll(ws, events);
    }
    List<Frame> seen = new ArrayList<>();
    String cursor;
    try (SseClient first = SseClient.open(url("resume", "since=0"))) {
      seen.addAll(stored(first, 4_321, null));
      cursor = seen.get(seen.size() - 1).id();
    }
    // The header wins over ?since=: resuming from since=1 would duplicate almost everything.
    try (SseClient second = SseClient.open(url("resume", "since=1"), Map.of("Last-Event-ID", cursor))) {
      seen.addAll(stored(second, 10_000 - seen.size(), null));
      Frame hb = second.await("heartbeat");
      assertEquals(seen.get(seen.size() - 1).seq(), hb.seq(), "caught up at the last frame");
    }
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < seen.size(); i++) {
      Frame f = seen.get(i);
      assertTrue(ids.add(f.data().getJsonObject("event").getString("id")), "duplicate at " + f.id());
      assertEquals(f.seq(), f.data().getLong("seq"));
      if (i > 0) {
        assertEquals(seen.get(i - 1).seq() + 1, f.seq(), "gap before " + f.id());
      }
    }
    assertEquals(events.stream().map(e -> e.getString("id")).collect(java.util.stream.Collectors.toSet()), ids);
  }

  @Test
  void backlogOfAQuietTenantDrainsFullyWithKeepalivesDuringTheReplayAndOneCaughtUpHeartbeat() throws Exception {
    List<JsonObject> events = notes(BOB, 5_000, "backlog");
    try (RelayClient ws = relay.connect("/t/backlog")) {
      publishAll(ws, events);
    }
    // No write from here on: only the replay itself may bring the stream to the end.
    try (SseClient c = SseClient.open(url("backlog", "since=0"))) {
      List<Frame> others = new ArrayList<>();
      List<Frame> all = stored(c, 5_000, others);
      Frame last = all.get(all.size() - 1);
      // The first heartbeat means "caught up" (CONTRACT section 4): during the replay only comments.
      assertTrue(others.isEmpty(), "no event but stored ones during the replay: " + others);
      assertTrue(c.comments.stream().anyMatch(l -> l.startsWith(": replaying " + last.epoch() + ":")),
          "keepalives during the replay: " + c.comments);
      Frame caughtUp = c.await("heartbeat");
      assertEquals(last.seq(), caughtUp.seq());
      assertEquals(last.epoch(), caughtUp.data().getString("epoch"));
    }
  }

  @Test
  void resetsInitialSyncServerRestartAndSeqTooOld() throws Exception {
    List<JsonObject> events = notes(ALICE, 10, "resets");
    try (RelayClient ws = relay.connect("/t/resets")) {
      publishAll(ws, events);
      awaitFeed("resets", 10);
      String epoch;
      try (SseClient c = SseClient.open(url("resets", ""))) {
        Frame reset = c.next();
        assertEquals("reset", reset.event());
        assertEquals("initial_sync", reset.data().getString("reason"));
        assertEquals(10, reset.data().getLong("high_seq"));
        assertEquals(1, reset.data().getLong("oldest_seq"));
        epoch = reset.data().getString("epoch");
        assertTrue(epoch.matches("[a-z2-7]{8}"), epoch);
        assertEquals(epoch + ":10", reset.id());
        Frame hb = c.next();
        assertEquals("heartbeat", hb.event());
        assertEquals(10, hb.seq());
        // live from high_seq
        JsonObject more = Events.note(ALICE, "live after initial_sync", List.of());
        publishAll(ws, List.of(more));
        Frame live = c.await("stored");
        assertEquals(11, live.seq());
        assertEquals(more.getString("id"), live.data().getJsonObject("event").getString("id"));
      }
      String otherEpoch = epoch.equals("aaaaaaaa") ? "bbbbbbbb" : "aaaaaaaa";
      try (SseClient c = SseClient.open(url("resets", "since=" + otherEpoch + ":3"))) {
        Frame reset = c.next();
        assertEquals("server_restart", reset.data().getString("reason"));
        assertEquals(11, reset.data().getLong("high_seq"));
      }
      try (SseClient c = SseClient.open(url("resets", "since=" + epoch + ":999"))) {
        assertEquals("server_restart", c.next().data().getString("reason"));
      }
      try (SseClient c = SseClient.open(url("resets", ""), Map.of("Last-Event-ID", "999"))) {
        assertEquals("server_restart", c.next().data().getString("reason"));
      }
      try (SseClient c = SseClient.open(url("resets", "since=" + epoch + ":5"))) {
        List<Frame> frames = c.untilHeartbeat();
        assertEquals(List.of(6L, 7L, 8L, 9L, 10L, 11L, 11L), frames.stream().map(Frame::seq).toList());
      }
      // Rows 1..5 leave the table (as a retention sweep would): a cursor below oldest - 1 is too old.
      FeedSupport.sql(relay, "resets", "DELETE FROM feed_events WHERE seq <= 5");
      try (SseClient c = SseClient.open(url("resets", "since=" + epoch + ":3"))) {
        Frame reset = c.next();
        assertEquals("seq_too_old", reset.data().getString("reason"));
        assertEquals(6, reset.data().getLong("oldest_seq"));
        assertEquals(11, reset.data().getLong("high_seq"));
        assertEquals("heartbeat", c.next().event());
        JsonObject more = Events.note(ALICE, "live after seq_too_old", List.of());
        publishAll(ws, List.of(more));
        assertEquals(12, c.await("stored").seq());
      }
      try (SseClient c = SseClient.open(url("resets", "since=" + epoch + ":5"))) {
        assertEquals("stored", c.next().event(), "oldest - 1 is still a valid cursor");
      }
    }
    assertTrue(sum(relay, "cairn_sse_reset_sent_total", "reason=\"initial_sync\"") >= 1);
    assertTrue(sum(relay, "cairn_sse_reset_sent_total", "reason=\"server_restart\"") >= 3);
    assertTrue(sum(relay, "cairn_sse_reset_sent_total", "reason=\"seq_too_old\"") >= 1);
  }

  @Test
  void tokensAndMalformedRequests() throws Exception {
    assertEquals(401, SseClient.get(url("secure", ""), Map.of()).statusCode());
    assertEquals(401, SseClient.get(url("secure", "token=nope"), Map.of()).statusCode());
    assertEquals(401, SseClient.get(url("secure", ""), Map.of("Authorization", "Bearer nope")).statusCode());
    SseClient.Reply forbidden = SseClient.get(url("secure", ""), Map.of("Authorization", "Bearer othertok"));
    assertEquals(403, forbidden.statusCode());
    assertTrue(new JsonObject(forbidden.body()).containsKey("error"));
    assertEquals(403, SseClient.get(url("secure", "token=othertok"), Map.of()).statusCode());
    try (SseClient c = SseClient.open(url("secure", ""), Map.of("Authorization", "Bearer s3cret"))) {
      assertTrue(c.contentType.startsWith("text/event-stream"), c.contentType);
      assertEquals("reset", c.next().event());
    }
    try (SseClient c = SseClient.open(url("secure", "token=s3cret"))) {
      assertEquals("reset", c.next().event());
    }
    // A tenant without tokens needs none.
    try (SseClient c = SseClient.open(url("idle", ""))) {
      assertEquals("reset", c.next().event());
    }
    for (String bad : List.of("since=abc", "since=ABCDEFGH:1", "since=abcdefgh:", "since=-1", "kinds=x",
        "authors=zz")) {
      SseClient.Reply r = SseClient.get(url("idle", bad), Map.of());
      assertEquals(400, r.statusCode(), bad);
      assertTrue(new JsonObject(r.body()).getString("error").length() > 0);
    }
    SseClient.Reply r = SseClient.get(url("idle", "since=1"), Map.of("Last-Event-ID", "not a cursor"));
    assertEquals(400, r.statusCode());
    assertEquals(404, SseClient.get(relay.httpUrl() + "/t/nope/v1/events", Map.of()).statusCode());
  }

  @Test
  void deletionFramesForNip09ReplacedAndExpired() throws Exception {
    try (RelayClient ws = relay.connect("/t/del"); SseClient c = SseClient.open(url("del", ""))) {
      assertEquals("reset", c.next().event());
      assertEquals("heartbeat", c.next().event());
      long now = Events.now();
      JsonObject note = Events.note(ALICE, "to be deleted", List.of());
      JsonObject deletion = Events.signed(ALICE, 5, now, List.of(List.of("e", note.getString("id"))), "");
      publishAll(ws, List.of(note));
      publishAll(ws, List.of(deletion)); // in order: sig checks run in parallel
      assertDeleted(c, note, "nip09");

      JsonObject v1 = Events.signed(ALICE, 0, now - 10, List.of(), "{\"name\":\"v1\"}");
      JsonObject v2 = Events.signed(ALICE, 0, now, List.of(), "{\"name\":\"v2\"}");
      publishAll(ws, List.of(v1));
      publishAll(ws, List.of(v2));
      assertDeleted(c, v1, "replaced");

      JsonObject expiring = Events.signed(ALICE, 1, now, List.of(List.of("expiration", String.valueOf(now + 2))), "soon");
      publishAll(ws, List.of(expiring));
      assertDeleted(c, expiring, "expired"); // the engine's NIP-40 purge, every 300 ms here
    }
  }

  private static void assertDeleted(SseClient c, JsonObject event, String reason) throws InterruptedException {
    Frame f = c.await(x -> x.event().equals("deleted"), null);
    JsonObject d = f.data();
    assertEquals(event.getString("id"), d.getString("id"));
    assertEquals(reason, d.getString("reason"));
    assertEquals(event.getInteger("kind"), d.getInteger("kind"));
    assertEquals(event.getString("pubkey"), d.getString("pubkey"));
    assertEquals(f.seq(), d.getLong("seq"));
    assertTrue(d.getLong("ts") > 0);
  }

  @Test
  void kindsAndAuthorsNarrowStoredAndDeletedFrames() throws Exception {
    long now = Events.now();
    JsonObject aliceNote = Events.note(ALICE, "not a reaction", List.of());
    JsonObject aliceReaction = Events.signed(ALICE, 7, now, List.of(List.of("e", aliceNote.getString("id"))), "+");
    JsonObject bobReaction = Events.signed(BOB, 7, now, List.of(List.of("e", aliceNote.getString("id"))), "+");
    JsonObject aliceDeletes = Events.signed(ALICE, 5, now, List.of(List.of("e", aliceReaction.getString("id"))), "");
    JsonObject bobNote = Events.note(BOB, "bob's", List.of());
    try (RelayClient ws = relay.connect("/t/narrow")) {
      publishAll(ws, List.of(aliceNote, aliceReaction, bobReaction));
      publishAll(ws, List.of(aliceDeletes));
      publishAll(ws, List.of(bobNote)); // seq 6: after every other row
    }
    awaitFeed("narrow", 6);
    try (SseClient c = SseClient.open(url("narrow", "since=0&kinds=7&authors=" + ALICE.pubkey()))) {
      List<Frame> frames = new ArrayList<>();
      // The heartbeat's cursor goes beyond the last frame sent: bob's note (seq 6) is scanned too.
      frames.add(c.await(f -> f.event().equals("heartbeat") && f.seq() == 6, frames));
      assertEquals(List.of("stored", "deleted", "heartbeat"), frames.stream().map(Frame::event).toList());
      assertEquals(aliceReaction.getString("id"), frames.get(0).data().getJsonObject("event").getString("id"));
      assertEquals(aliceReaction.getString("id"), frames.get(1).data().getString("id"));
      assertEquals(5, frames.get(1).seq());
    }
    try (SseClient c = SseClient.open(url("narrow", "since=0&kinds=1,7"))) {
      List<Frame> frames = c.untilHeartbeat();
      assertEquals(5, frames.stream().filter(f -> !f.event().equals("heartbeat")).count(),
          "notes, reactions and the deleted reaction; not the kind 5: " + frames);
    }
  }

  @Test
  void aQuietTenantWithConnectedStreamsGetsNoDbQueries() throws Exception {
    List<SseClient> clients = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        SseClient c = SseClient.open(url("idle", ""));
        clients.add(c);
        assertEquals("reset", c.next().event());
        assertEquals("heartbeat", c.next().event());
      }
      double before = sum(relay, "cairn_feed_page_queries_total", "tenant=\"idle\"");
      assertTrue(before > 0, "the meter counts the opening reads");
      assertEquals(3, sum(relay, "cairn_sse_connections", "tenant=\"idle\""));
      for (SseClient c : clients) { // periodic heartbeats keep coming ...
        assertEquals("heartbeat", c.next().event());
        assertEquals("heartbeat", c.next().event());
      }
      // ... and not one read of the tenant DB came with them.
      assertEquals(before, sum(relay, "cairn_feed_page_queries_total", "tenant=\"idle\""));
      try (RelayClient ws = relay.connect("/t/idle")) {
        publishAll(ws, List.of(Events.note(ALICE, "wakes the idle tenant", List.of())));
      }
      for (SseClient c : clients) {
        assertEquals("stored", c.await("stored").event());
      }
      assertNotEquals(before, sum(relay, "cairn_feed_page_queries_total", "tenant=\"idle\""));
    } finally {
      clients.forEach(SseClient::close);
    }
    assertFalse(clients.isEmpty());
  }
}
