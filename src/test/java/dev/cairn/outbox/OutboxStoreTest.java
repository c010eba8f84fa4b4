package dev.cairn.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistResult;
import dev.cairn.store.StoreException;
import dev.cairn.store.SqliteTenantStore;
import dev.cairn.store.outbox.OutboxQueue;
import dev.cairn.store.outbox.OutboxRow;
import dev.cairn.store.outbox.Settlement;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The outbox rows a write produces (same transaction), and the claim/settle SQL with its lease. */
@org.junit.jupiter.api.Tag("sqlite-only") // SQLite only: opens SqliteTenantStore on a file (MySQL: store/mysql/OutboxStoreContractTest)
class OutboxStoreTest {
  static final long NOW = System.currentTimeMillis() / 1000;
  static final long LEASE = 600_000;

  @TempDir Path dir;
  SqliteTenantStore store;
  Path db;
  final EventSigner alice = EventSigner.random();

  @BeforeEach
  void open() {
    db = dir.resolve("tenants/acme.db");
    store = SqliteTenantStore.open(db, 1);
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void everyStoredEventWritesOneEventStoredWithTheContractBody() throws Exception {
    NostrEvent a = alice.sign(NOW, 1, List.of(), "hello");
    NostrEvent b = alice.sign(NOW, 1, List.of(), "world");
    List<PersistResult> r = store.persistBatch(List.of(a, b, a), NOW);
    assertInstanceOf(PersistResult.Duplicate.class, r.get(2));
    List<OutboxDb.Row> rows = OutboxDb.rows(db);
    assertEquals(2, rows.size(), "one row per stored event, none for the duplicate");
    // the row names its event; the claim reads the body the relay publishes
    List<OutboxRow> claimed = store.outboxTransaction(c -> OutboxQueue.claimDue(c, "acme", System.currentTimeMillis() + 1000, 10, LEASE, true)).rows();
    for (int i = 0; i < 2; i++) {
      OutboxDb.Row row = rows.get(i);
      JsonObject body = new JsonObject(Buffer.buffer(claimed.get(i).body()));
      assertEquals("EventStored", row.type());
      assertEquals("pending", row.status());
      assertEquals(0, row.attempts());
      assertEquals(row.eventId(), body.getString("event_id"));
      UUID.fromString(row.eventId());
      assertEquals("EventStored", body.getString("type"));
      assertEquals("acme", body.getString("tenant"));
      assertEquals(((PersistResult.Stored) r.get(i)).seq(), body.getLong("seq"));
      assertTrue(body.getLong("occurred_at") > 1_600_000_000_000L, "occurred_at is in ms");
      assertEquals(List.of(a, b).get(i).id(), body.getJsonObject("payload").getString("id"));
      assertEquals(List.of(a, b).get(i).content(), body.getJsonObject("payload").getString("content"));
    }
  }

  @Test
  void claimedOnWriteRowsAreHandedOverWithTheirIdsAndBodiesAndSettleDone() throws Exception {
    store.claimOutboxOnWrite();
    NostrEvent first = alice.sign(NOW, 1, List.of(), "before");
    store.persistBatch(List.of(first), NOW); // an earlier commit: ids of the next batch do not start at 1
    List<OutboxRow> before = store.takeClaimedOutbox();
    assertEquals(1, before.size());
    NostrEvent a = alice.sign(NOW, 1, List.of(), "hello");
    NostrEvent b = alice.sign(NOW, 1, List.of(), "world");
    NostrEvent v1 = alice.sign(NOW - 10, 0, List.of(), "{\"name\":\"one\"}");
    NostrEvent v2 = alice.sign(NOW - 5, 0, List.of(), "{\"name\":\"two\"}");
    store.persistBatch(List.of(v1), NOW);
    store.takeClaimedOutbox();
    List<PersistResult> r = store.persistBatch(List.of(a, b, a, v2), NOW);
    assertInstanceOf(PersistResult.Duplicate.class, r.get(2));
    List<OutboxRow> claimed = store.takeClaimedOutbox();
    assertEquals(List.of(), store.takeClaimedOutbox(), "handed over once");
    // a, b, v2's EventStored and v1's EventDeleted (replaced), as the DB holds them
    List<OutboxDb.Row> rows = OutboxDb.rows(db).subList(2, 6);
    assertEquals(4, claimed.size());
    for (int i = 0; i < 4; i++) {
      OutboxDb.Row row = rows.get(i);
      OutboxRow c = claimed.get(i);
      assertEquals(row.id(), c.id(), "the handed-over row is the DB's row");
      assertEquals(row.eventId(), c.eventId());
      assertEquals(row.type(), c.type());
      assertEquals("processing", row.status(), "written claimed by this process");
      assertEquals(row.claimedAt(), c.claimedAt());
      JsonObject body = new JsonObject(Buffer.buffer(c.body()));
      assertEquals(row.eventId(), body.getString("event_id"));
      assertEquals("acme", body.getString("tenant"));
      if (row.type().equals("EventStored")) {
        NostrEvent e = List.of(a, b, v2).get(i < 2 ? i : 2);
        assertEquals(e.id(), body.getJsonObject("payload").getString("id"));
        assertEquals(e.content(), body.getJsonObject("payload").getString("content"));
        assertEquals(body.getLong("seq"), c.seq());
      } else {
        assertEquals(v1.id(), body.getJsonObject("payload").getString("id"));
        assertEquals("replaced", body.getJsonObject("payload").getString("reason"));
      }
    }
    // not due for the claim loop while the claim is fresh; settled done in one go
    assertEquals(List.of(), store.outboxTransaction(c -> OutboxQueue.claimDue(c, "acme", System.currentTimeMillis(), 10, LEASE, true)).rows());
    OutboxQueue.Settled settled = store.outboxTransaction(c -> OutboxQueue.settle(c,
        claimed.stream().map(Settlement::done).toList()));
    assertEquals(4, settled.left());
    assertEquals(4, OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status = 'done' AND id >= ?", claimed.get(0).id()));
    // a claimer with another claimed_at settles nothing
    OutboxRow stale = new OutboxRow(before.get(0).id(), before.get(0).eventId(), before.get(0).type(), OutboxQueue.NO_BODY, 0,
        before.get(0).claimedAt() + 1);
    assertEquals(0, store.outboxTransaction(c -> OutboxQueue.settle(c, List.of(Settlement.done(stale)))).left());
    // a crashed claimer's rows come back after the lease
    List<OutboxRow> again = store.outboxTransaction(c -> OutboxQueue.claimDue(c, "acme",
        before.get(0).claimedAt() + LEASE, 10, LEASE, true)).rows();
    assertEquals(before.get(0).id(), again.get(0).id());
  }

  @Test
  void anEventGoneBeforeItsRowIsClaimedStillReachesTheOutboxWithItsJson() throws Exception {
    NostrEvent v1 = alice.sign(NOW - 10, 0, List.of(), "{\"name\":\"one\"}");
    NostrEvent v2 = alice.sign(NOW - 5, 0, List.of(), "{\"name\":\"two\"}");
    NostrEvent v3 = alice.sign(NOW - 1, 0, List.of(), "{\"name\":\"three\"}");
    store.persistBatch(List.of(v1), NOW);
    store.persistBatch(List.of(v2, v3), NOW); // v1 replaced by a later batch, v2 inside its own
    List<OutboxRow> rows = store.outboxTransaction(c -> OutboxQueue.claimDue(c, "acme", System.currentTimeMillis() + 1000, 10, LEASE, true)).rows();
    List<String> stored = rows.stream().filter(r -> r.type().equals("EventStored"))
        .map(r -> new JsonObject(Buffer.buffer(r.body())).getJsonObject("payload").getString("content")).toList();
    assertEquals(List.of("{\"name\":\"one\"}", "{\"name\":\"two\"}", "{\"name\":\"three\"}"), stored);
    assertEquals(2, rows.stream().filter(r -> r.type().equals("EventDeleted")).count());
  }

  @Test
  void replacementDeletionAndExpiryWriteEventDeletedWithTheirReason() throws Exception {
    NostrEvent v1 = alice.sign(NOW - 10, 0, List.of(), "{\"name\":\"a\"}");
    NostrEvent v2 = alice.sign(NOW - 5, 0, List.of(), "{\"name\":\"b\"}");
    NostrEvent note = alice.sign(NOW, 1, List.of(), "bye");
    NostrEvent expiring = alice.sign(NOW, 1, List.of(List.of("expiration", String.valueOf(NOW + 1))), "short");
    store.persistBatch(List.of(v1, v2, note, expiring), NOW);
    NostrEvent del = alice.sign(NOW, 5, List.of(List.of("e", note.id())), "");
    store.persistBatch(List.of(del), NOW);
    store.purgeExpired(NOW + 2, 100);
    List<JsonObject> deleted = OutboxDb.rows(db).stream().filter(r -> r.type().equals("EventDeleted"))
        .map(r -> new JsonObject(Buffer.buffer(r.body()))).toList();
    assertEquals(3, deleted.size(), deleted.toString());
    assertEquals(v1.id(), deleted.get(0).getJsonObject("payload").getString("id"));
    assertEquals("replaced", deleted.get(0).getJsonObject("payload").getString("reason"));
    assertEquals(0, deleted.get(0).getJsonObject("payload").getInteger("kind"));
    assertEquals(alice.pubkey(), deleted.get(0).getJsonObject("payload").getString("pubkey"));
    assertEquals(note.id(), deleted.get(1).getJsonObject("payload").getString("id"));
    assertEquals("nip09", deleted.get(1).getJsonObject("payload").getString("reason"));
    assertEquals(expiring.id(), deleted.get(2).getJsonObject("payload").getString("id"));
    assertEquals("expired", deleted.get(2).getJsonObject("payload").getString("reason"));
    assertEquals(5 + 3, OutboxDb.rows(db).size(), "5 EventStored + 3 EventDeleted");
  }

  @Test
  void aFailedWriteLeavesNoOutboxRows() throws Exception {
    // The outbox insert fails inside the transaction (unique event_id clash): the whole batch rolls back.
    NostrEvent a = alice.sign(NOW, 1, List.of(), "first");
    store.persistBatch(List.of(a), NOW);
    String taken = OutboxDb.rows(db).get(0).eventId();
    OutboxDb.update(db, "CREATE TRIGGER clash BEFORE INSERT ON event_queue BEGIN"
        + " SELECT RAISE(ABORT, 'boom') WHERE NEW.type = 'EventStored'; END");
    NostrEvent b = alice.sign(NOW, 1, List.of(), "second");
    List<PersistResult> r;
    try {
      r = store.persistBatch(List.of(b), NOW);
    } catch (StoreException e) {
      r = null;
    }
    if (r != null) {
      assertInstanceOf(PersistResult.Rejected.class, r.get(0), "the event is not stored without its outbox row");
    }
    assertEquals(0, OutboxDb.count(db, "SELECT COUNT(*) FROM events WHERE id = ?", b.id()));
    assertEquals(1, OutboxDb.rows(db).size());
    assertNotNull(taken);
  }

  @Test
  void aClaimIsReclaimedOnlyAfterTheLeaseAndAStaleSettleChangesNothing() {
    store.persistBatch(List.of(alice.sign(NOW, 1, List.of(), "x")), NOW);
    long t0 = System.currentTimeMillis() + 1000;
    OutboxQueue.Claim first = store.outboxTransaction(c -> OutboxQueue.claimDue(c, "default", t0, 10, LEASE, true));
    assertEquals(1, first.rows().size());
    assertEquals(1, store.outboxBacklog(), "the pending count follows the table without a query");
    assertEquals(t0 + LEASE, first.nextDueMs(), "next due: when the claim's lease runs out");
    // The claimer crashes. Before the lease runs out nobody else gets the row.
    assertTrue(store.outboxTransaction(c -> OutboxQueue.claimDue(c, "default", t0 + LEASE - 1, 10, LEASE, true)).rows().isEmpty());
    OutboxQueue.Claim second = store.outboxTransaction(c -> OutboxQueue.claimDue(c, "default", t0 + LEASE, 10, LEASE, true));
    assertEquals(1, second.rows().size(), "a claim older than 600 s is reclaimed");
    OutboxRow stale = first.rows().get(0);
    // The first claimer wakes up and settles: nothing changes.
    store.outboxTransaction(c -> OutboxQueue.settle(c, List.of(Settlement.deadLetter(stale, "late"))));
    store.outboxTransaction(c -> OutboxQueue.settle(c, List.of(Settlement.done(stale))));
    assertEquals("processing", status());
    store.outboxTransaction(c -> OutboxQueue.settle(c, List.of(Settlement.done(second.rows().get(0)))));
    assertEquals("done", status());
  }

  @Test
  void retryDeferAndDeadLetter() throws Exception {
    store.persistBatch(List.of(alice.sign(NOW, 1, List.of(), "x")), NOW);
    long t = System.currentTimeMillis() + 1000;
    OutboxRow r = store.outboxTransaction(c -> OutboxQueue.claimDue(c, "default", t, 10, LEASE, true)).rows().get(0);
    store.outboxTransaction(c -> OutboxQueue.settle(c, List.of(Settlement.defer(r, t + 1800_000, "held"))));
    assertEquals(0, OutboxDb.rows(db).get(0).attempts(), "a deferral spends no attempt");
    assertTrue(store.outboxTransaction(c -> OutboxQueue.claimDue(c, "default", t + 1799_999, 10, LEASE, true)).rows().isEmpty());
    OutboxRow r2 = store.outboxTransaction(c -> OutboxQueue.claimDue(c, "default", t + 1800_000, 10, LEASE, true)).rows().get(0);
    store.outboxTransaction(c -> OutboxQueue.settle(c, List.of(Settlement.retry(r2, t + 1805_000, "boom"))));
    assertEquals(1, OutboxDb.rows(db).get(0).attempts());
    OutboxRow r3 = store.outboxTransaction(c -> OutboxQueue.claimDue(c, "default", t + 1805_000, 10, LEASE, true)).rows().get(0);
    int dead = store.outboxTransaction(c -> OutboxQueue.settle(c, List.of(Settlement.deadLetter(r3, "boom"))))
        .deadLettered();
    assertEquals(1, dead);
    assertEquals("dead_lettered", status());
    assertEquals(2, OutboxDb.rows(db).get(0).attempts());
    assertThrows(IndexOutOfBoundsException.class,
        () -> store.outboxTransaction(c -> OutboxQueue.claimDue(c, "default", Long.MAX_VALUE / 2, 10, LEASE, true)).rows().get(0));
  }

  private String status() {
    try {
      return OutboxDb.rows(db).get(0).status();
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }
}
