package dev.cairn.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.delivery.outbox.StreamReconciler;
import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.Events;
import dev.cairn.relay.RelayClient;
import dev.cairn.relay.TestDialect;
import dev.cairn.relay.TestRelay;
import io.nats.client.api.MessageInfo;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** outbox.backend=nats against the real JetStream at 127.0.0.1:4222, one unique stream per test. */
class NatsBackendTest {

  /** A log handler that keeps every record in {@code into}. */
  private static Handler capture(List<LogRecord> into) {
    return new Handler() {
      @Override
      public void publish(LogRecord r) {
        into.add(r);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
  }

  private static List<String> publish(RelayClient client, EventSigner signer, int n, String word) throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      JsonObject ev = Events.note(signer, word + " " + i, List.of());
      assertTrue(client.publishAndWait(ev).getBoolean(2));
      ids.add(ev.getString("id"));
    }
    return ids;
  }

  /**
   * The start-up warm-up stores thousands of events (on SQLite, in a tenant of its own, decision 0011):
   * none of them may reach the stream. Only the one event a client publishes afterwards does.
   */
  @Test
  void theStartupWarmupsEventsNeverReachTheStream() throws Exception {
    EventSigner carol = EventSigner.random();
    try (NatsSupport nats = new NatsSupport();
        TestRelay relay = TestRelay.start(nats.config(NatsSupport.URL, "jetstream"),
            java.util.Map.of("CAIRN_STARTUP_WARMUP", "1s"));
        RelayClient client = relay.connect()) {
      String id = publish(client, carol, 1, "after the warm-up").get(0);
      OutboxDb.await("the client's event in the stream", 30, () -> nats.messageCount() >= 1);
      Thread.sleep(1_000); // anything else on its way would land meanwhile
      List<MessageInfo> messages = nats.messages();
      assertEquals(1, messages.size(), "only the client's event");
      assertEquals(nats.prefix + ".default.EventStored", messages.get(0).getSubject());
      assertEquals(id, new JsonObject(new String(messages.get(0).getData(), StandardCharsets.UTF_8))
          .getJsonObject("payload").getString("id"));
    }
  }

  @Test
  void nEventsGiveExactlyNMessagesWithTheirMsgIdAndARelayedTwiceRowIsOneMessage() throws Exception {
    EventSigner alice = EventSigner.random();
    try (NatsSupport nats = new NatsSupport()) {
      JsonObject config = nats.config(NatsSupport.URL, "jetstream");
      Path data = Files.createTempDirectory("cairn-nats");
      Path db = OutboxDb.tenantDb(data, "default");
      List<String> ids;
      try (TestRelay relay = TestRelay.startOn(data, config); RelayClient client = relay.connect()) {
        ids = publish(client, alice, 40, "kiwi");
        OutboxDb.await("40 messages in the stream", 30, () -> nats.messageCount() == 40);
        OutboxDb.await("rows marked done", 30,
            () -> OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'done'") == 40);
        if (!TestDialect.mysql()) { // OutboxDb.NO_MYSQL_SEARCH
          // The search handler ran in the engine, in the claim's transaction (no NATS round trip).
          OutboxDb.await("search handler done", 30, () -> OutboxDb.searchCaughtUp(db));
          assertEquals(40, client.query("s", new JsonObject().put("search", "kiwi")).size());
        }
        relay.stop();
      }
      List<MessageInfo> messages = nats.messages();
      assertEquals(40, messages.size());
      Set<String> eventIds = new HashSet<>();
      Set<String> nostrIds = new HashSet<>();
      for (MessageInfo m : messages) {
        JsonObject body = new JsonObject(new String(m.getData(), StandardCharsets.UTF_8));
        assertEquals(nats.prefix + ".default.EventStored", m.getSubject());
        assertEquals(body.getString("event_id"), m.getHeaders().getFirst("Nats-Msg-Id"));
        assertEquals("EventStored", body.getString("type"));
        assertEquals("default", body.getString("tenant"));
        eventIds.add(body.getString("event_id"));
        nostrIds.add(body.getJsonObject("payload").getString("id"));
      }
      assertEquals(Set.copyOf(ids), nostrIds);
      Set<String> rowIds = new HashSet<>();
      OutboxDb.rows(db).forEach(r -> rowIds.add(r.eventId()));
      assertEquals(rowIds, eventIds);
      var info = nats.jsm.getStreamInfo(nats.stream).getConfiguration();
      assertEquals(Duration.ofHours(1), info.getDuplicateWindow());
      assertEquals(10, nats.jsm.getConsumerInfo(nats.stream, StreamReconciler.CONSUMER)
          .getConsumerConfiguration().getMaxDeliver());

      // Crash after publish, before mark: the rows are back to pending (as if the mark never committed).
      assertEquals(40, OutboxDb.update(db, "UPDATE event_queue SET status = 'processing', claimed_at = 1"));
      try (TestRelay relay = TestRelay.startOn(data, config)) {
        OutboxDb.await("rows relayed again and marked done", 30,
            () -> OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'done'") == 40);
        assertEquals(40, nats.messageCount(), "JetStream dropped the repeated Msg-Ids");
        // the backlog read at open (the 40 crashed claims) is settled back down, not left counting them
        OutboxDb.await("cairn_outbox_pending back to 0 after the restart", 10, () -> pending(relay) == 0);
        relay.stop();
      }
      TestRelayDirs.delete(data);
    }
  }

  @Test
  void whileNatsIsDownRowsWaitWithoutSpendingAttemptsAndAllArriveWhenItIsBack() throws Exception {
    EventSigner bob = EventSigner.random();
    try (NatsSupport nats = new NatsSupport(); TcpProxy proxy = new TcpProxy(4222)) {
      JsonObject config = nats.config("nats://127.0.0.1:" + proxy.port(), "jetstream");
      config.getJsonObject("outbox").put("max_attempts", 1); // an attempt spent on the outage would dead-letter
      try (TestRelay relay = TestRelay.start(config, java.util.Map.of()); RelayClient client = relay.connect()) {
        Path db = OutboxDb.tenantDb(relay.dataDir(), "default");
        publish(client, bob, 5, "before");
        // relayed and settled: a row whose publish was acked but whose settle has not committed yet would
        // still count as waiting below
        OutboxDb.await("first 5 relayed", 30, () -> nats.messageCount() == 5
            && OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'done'") == 5);
        proxy.stop(); // NATS goes away mid-run
        List<String> during = publish(client, bob, 20, "during");
        // The relay sees the outage (rows it tried meanwhile are deferred with the reason), and waits.
        OutboxDb.await("the relay saw the outage", 30, () -> relay.metrics().contains("cairn_outbox_nats_connected 0.0")
            || OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE last_error = 'NATS unreachable'") > 0);
        assertEquals(20, OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status IN ('pending', 'processing')"
            + " AND attempts = 0"), "rows wait");
        assertEquals(0, OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'dead_lettered'"));
        assertEquals(5, nats.messageCount());
        // the backlog gauge counts what waits (not what the last claim saw)
        OutboxDb.await("cairn_outbox_pending shows the 20 waiting rows", 10, () -> pending(relay) == 20);
        proxy.start(); // NATS is back
        OutboxDb.await("all 25 delivered", 60, () -> nats.messageCount() == 25
            && OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'done'") == 25);
        assertEquals(0, OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE attempts > 0"));
        OutboxDb.await("cairn_outbox_pending back to 0", 10, () -> pending(relay) == 0);
        Set<String> inStream = new HashSet<>();
        for (MessageInfo m : nats.messages()) {
          inStream.add(new JsonObject(new String(m.getData(), StandardCharsets.UTF_8)).getJsonObject("payload")
              .getString("id"));
        }
        assertTrue(inStream.containsAll(during));
      }
    }
  }

  /**
   * Rows written claimed are published from the commit, up to a bound of rows not yet settled
   * (NatsRelay.MAX_IN_FLIGHT_BATCHES x outbox.batch); past it they are handed back to the claim loop
   * ("relay busy", due now, no attempt spent). With the broker's answers held, the bound is reached; once
   * they flow again every event is in the stream exactly once and no row spent an attempt (on MySQL, whose
   * stores publish from the claim loop only, the same end state after the same hold).
   */
  @Test
  void rowsPastTheInFlightBoundGoThroughTheClaimLoopExactlyOnce() throws Exception {
    EventSigner dan = EventSigner.random();
    try (NatsSupport nats = new NatsSupport(); TcpProxy proxy = new TcpProxy(4222)) {
      JsonObject config = nats.config("nats://127.0.0.1:" + proxy.port(), "jetstream");
      config.getJsonObject("outbox").put("batch", 1).put("max_attempts", 1); // a bound of 64 rows in flight
      try (TestRelay relay = TestRelay.start(config, java.util.Map.of()); RelayClient client = relay.connect()) {
        Path db = OutboxDb.tenantDb(relay.dataDir(), "default");
        List<String> ids = publish(client, dan, 1, "first"); // the stream is there and the relay publishing
        OutboxDb.await("the first event relayed", 30, () -> nats.messageCount() == 1);
        proxy.holdReplies(true); // no PubAck reaches the relay: nothing it publishes settles
        ids.addAll(publish(client, dan, 100, "held"));
        if (!TestDialect.mysql()) { // MySQL stores keep the claim loop alone (decision 0008): nothing to hand back
          OutboxDb.await("rows past the bound handed back to the claim loop", 10,
              () -> OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE last_error = 'relay busy'") > 0);
        }
        proxy.holdReplies(false);
        OutboxDb.await("all 101 delivered and settled", 60, () -> nats.messageCount() == 101
            && OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'done'") == 101);
        assertEquals(0, OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE attempts > 0"), "no attempt spent");
        Set<String> inStream = new HashSet<>();
        for (MessageInfo m : nats.messages()) {
          assertTrue(inStream.add(new JsonObject(new String(m.getData(), StandardCharsets.UTF_8))
              .getJsonObject("payload").getString("id")), "one message per event");
        }
        assertEquals(new HashSet<>(ids), inStream);
      }
    }
  }

  /**
   * A broker that stops answering while the connection stays up (a stalled or frozen nats-server, not a lost
   * connection): every batch in flight times out ({@code NatsRelay.PUBLISH_TIMEOUT_MS}) at about the same
   * moment. That is one failure of the transport: the rows wait the first, short round of the outage backoff,
   * not 30 s (the cap) because thirty batches failed together, and the log says so once and once more when
   * publishing works again, not a line per batch (2,600 lines in an 8-s freeze of a nats-server under 1,000
   * events/s). Every event reaches the stream once, no attempt spent.
   */
  @Test
  void aStalledBrokerIsOneFailureLoggedOnceAndItsRowsGoSoonAfter() throws Exception {
    EventSigner erin = EventSigner.random();
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler capture = capture(records);
    Logger logger = Logger.getLogger("dev.cairn.delivery.outbox.NatsRelay");
    logger.addHandler(capture);
    try (NatsSupport nats = new NatsSupport(); TcpProxy proxy = new TcpProxy(4222)) {
      JsonObject config = nats.config("nats://127.0.0.1:" + proxy.port(), "jetstream");
      config.getJsonObject("outbox").put("batch", 1).put("max_attempts", 1); // a batch per row
      try (TestRelay relay = TestRelay.start(config, java.util.Map.of()); RelayClient client = relay.connect()) {
        Path db = OutboxDb.tenantDb(relay.dataDir(), "default");
        List<String> ids = publish(client, erin, 1, "first");
        OutboxDb.await("the first event relayed", 30, () -> nats.messageCount() == 1
            && OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'done'") == 1);
        proxy.holdReplies(true); // the broker takes the messages and answers nothing
        ids.addAll(publish(client, erin, 30, "stalled"));
        OutboxDb.await("publishes timed out", 30, () -> records.stream()
            .anyMatch(r -> r.getMessage().contains("could not be published")));
        proxy.holdReplies(false);
        OutboxDb.await("all 31 settled soon after the broker answers again", 20,
            () -> OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'done'") == 31);
        assertEquals(0, OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE attempts > 0"), "no attempt spent");
        Set<String> inStream = new HashSet<>();
        for (MessageInfo m : nats.messages()) {
          assertTrue(inStream.add(new JsonObject(new String(m.getData(), StandardCharsets.UTF_8))
              .getJsonObject("payload").getString("id")), "one message per event");
        }
        assertEquals(new HashSet<>(ids), inStream);
        OutboxDb.await("the recovery logged", 10, () -> records.stream()
            .anyMatch(r -> r.getMessage().contains("publishing rows of tenant default works again")));
        List<String> lines = records.stream().map(LogRecord::getMessage).toList();
        assertEquals(1, lines.stream().filter(l -> l.contains("publishing rows of tenant default failed: ")).count(),
            lines.toString());
        assertTrue(lines.size() <= 3, "the first failure, at most one summary, the recovery: " + lines);
      }
    } finally {
      logger.removeHandler(capture);
    }
  }

  /**
   * The stream vanishes while the relay stays connected (deleted by hand, or a broker restarted without its
   * store): publishes are answered "no responders". The relay creates the stream (and the handlers'
   * consumer) again and every event written meanwhile reaches it, with no attempt spent, and the handler
   * fed from it (forward) gets each once.
   */
  @Test
  void aStreamDeletedUnderTheRelayIsCreatedAgainAndNothingIsLost() throws Exception {
    EventSigner erin = EventSigner.random();
    try (NatsSupport nats = new NatsSupport(); FakeUpstream upstream = new FakeUpstream(false)) {
      JsonObject config = nats.config(NatsSupport.URL, "jetstream");
      config.getJsonObject("outbox").put("max_attempts", 1); // an attempt spent on the missing stream would dead-letter
      config.put("forward", new JsonObject().put("relays", new JsonArray().add(upstream.url())));
      try (TestRelay relay = TestRelay.start(config, java.util.Map.of()); RelayClient client = relay.connect()) {
        Path db = OutboxDb.tenantDb(relay.dataDir(), "default");
        publish(client, erin, 1, "before");
        OutboxDb.await("the first event relayed", 30, () -> nats.messageCount() == 1);
        assertTrue(nats.jsm.deleteStream(nats.stream));
        List<String> after = publish(client, erin, 5, "after");
        OutboxDb.await("the stream created again with the 5 events written meanwhile", 30,
            () -> nats.messageCount() == 5
                && OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'done'") == 6);
        assertEquals(0, OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE attempts > 0"), "no attempt spent");
        Set<String> inStream = new HashSet<>();
        for (MessageInfo m : nats.messages()) {
          inStream.add(new JsonObject(new String(m.getData(), StandardCharsets.UTF_8)).getJsonObject("payload")
              .getString("id"));
        }
        assertEquals(new HashSet<>(after), inStream);
        OutboxDb.await("the handler fed from the new consumer forwarded them", 30,
            () -> after.stream().allMatch(id -> upstream.count(id) >= 1));
        for (String id : after) {
          assertEquals(1, upstream.count(id), "forwarded once: " + id);
        }
      }
    }
  }

  @Test
  void aMessageThatKeepsFailingLogsEventExhaustedMaxDeliveries() throws Exception {
    EventSigner carol = EventSigner.random();
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler capture = capture(records);
    Logger logger = Logger.getLogger("dev.cairn.delivery.outbox.NatsHandlers");
    logger.addHandler(capture);
    try (NatsSupport nats = new NatsSupport(); FakeUpstream refusing = new FakeUpstream(true)) {
      JsonObject config = nats.config(NatsSupport.URL, "jetstream");
      config.getJsonObject("outbox").put("max_attempts", 2);
      config.put("forward", new JsonObject().put("relays", new JsonArray().add(refusing.url())));
      try (TestRelay relay = TestRelay.start(config, java.util.Map.of()); RelayClient client = relay.connect()) {
        Path db = OutboxDb.tenantDb(relay.dataDir(), "default");
        JsonObject ev = Events.note(carol, "fig jam", List.of());
        assertTrue(client.publishAndWait(ev).getBoolean(2));
        OutboxDb.await("exhausted logged", 30, () -> records.stream().anyMatch(r ->
            r.getLevel() == java.util.logging.Level.SEVERE && r.getMessage().contains("event exhausted max deliveries")));
        String eventId = OutboxDb.rows(db).get(0).eventId();
        assertTrue(records.stream().anyMatch(r -> r.getMessage().contains("event_id=" + eventId)));
        assertEquals(2, refusing.count(ev.getString("id")), "max_deliver = outbox.max_attempts deliveries");
        if (!TestDialect.mysql()) { // OutboxDb.NO_MYSQL_SEARCH
          // The search handler ran (once, in the engine) and the event is searchable.
          OutboxDb.await("search handler done", 30, () -> OutboxDb.searchCaughtUp(db));
          assertEquals(1, client.query("s", new JsonObject().put("search", "fig")).size());
        }
      }
    } finally {
      logger.removeHandler(capture);
    }
  }

  @Test
  void coreModePublishesFireAndForget() throws Exception {
    EventSigner dave = EventSigner.random();
    try (NatsSupport nats = new NatsSupport(); FakeUpstream upstream = new FakeUpstream(false)) {
      JsonObject config = nats.config(NatsSupport.URL, "core");
      config.put("forward", new JsonObject().put("relays", new JsonArray().add(upstream.url())));
      try (TestRelay relay = TestRelay.start(config, java.util.Map.of()); RelayClient client = relay.connect()) {
        Path db = OutboxDb.tenantDb(relay.dataDir(), "default");
        List<String> ids = publish(client, dave, 5, "lime");
        OutboxDb.await("rows done after publish", 30,
            () -> OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'done'") == 5);
        OutboxDb.await("core subscribers ran the forward handler", 30, () -> OutboxDb.count(db,
            "SELECT COUNT(*) FROM processed_events WHERE handler = 'forward' AND status = 'done'") == 5);
        for (String id : ids) {
          assertEquals(1, upstream.count(id), "forwarded once: " + id);
        }
        assertEquals(-1, nats.messageCount(), "core mode creates no stream");
      }
    }
  }

  /** The {@code cairn_outbox_pending} gauge as scraped. */
  private static long pending(TestRelay relay) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^cairn_outbox_pending ([0-9.E]+)$")
        .matcher(relay.metrics());
    return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
  }
}
