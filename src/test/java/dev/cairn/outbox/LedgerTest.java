package dev.cairn.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.store.SqliteTenantStore;
import dev.cairn.store.outbox.LedgerClaim;
import dev.cairn.store.outbox.ProcessedEventLedger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The processed-event ledger: two consumers (two stores on one DB file, as two pods would be) race
 * for the same event; stale workers; a crashed claim.
 */
@org.junit.jupiter.api.Tag("sqlite-only") // SQLite only: two SqliteTenantStores on one file (MySQL: store/mysql/OutboxStoreContractTest)
class LedgerTest {
  static final long LEASE = 1_800_000;

  @TempDir Path dir;
  SqliteTenantStore a;
  SqliteTenantStore b;
  Path db;

  @BeforeEach
  void open() {
    db = dir.resolve("tenants/t.db");
    a = SqliteTenantStore.open(db, 1);
    b = SqliteTenantStore.open(db, 1);
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
  }

  /** One consumer's delivery: claim, run (count the effect), mark done. */
  private LedgerClaim deliver(SqliteTenantStore s, String eventId, AtomicInteger effects, CountDownLatch go) throws Exception {
    go.await();
    long now = System.currentTimeMillis();
    LedgerClaim claim = s.outboxTransaction(c -> ProcessedEventLedger.claim(c, eventId, "search", now, LEASE));
    if (claim instanceof LedgerClaim.Claimed mine) {
      effects.incrementAndGet();
      Thread.sleep(20);
      assertTrue((boolean) s.outboxTransaction(c -> ProcessedEventLedger.done(c, eventId, "search", mine.startedAt(),
          System.currentTimeMillis())));
    }
    return claim;
  }

  @Test
  void twoConcurrentConsumersRunTheHandlerOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 50; round++) {
        String eventId = UUID.randomUUID().toString();
        AtomicInteger effects = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        Future<LedgerClaim> x = pool.submit(() -> deliver(a, eventId, effects, go));
        Future<LedgerClaim> y = pool.submit(() -> deliver(b, eventId, effects, go));
        go.countDown();
        List<LedgerClaim> outcomes = List.of(x.get(10, TimeUnit.SECONDS), y.get(10, TimeUnit.SECONDS));
        assertEquals(1, effects.get(), "round " + round + ": " + outcomes);
        assertEquals(1, outcomes.stream().filter(o -> o instanceof LedgerClaim.Claimed).count());
        LedgerClaim other = outcomes.stream().filter(o -> !(o instanceof LedgerClaim.Claimed)).findFirst().get();
        assertTrue(other instanceof LedgerClaim.HeldElsewhere || other instanceof LedgerClaim.AlreadyDone, "" + other);
        // A later delivery of the same event skips the handler.
        assertInstanceOf(LedgerClaim.AlreadyDone.class, a.outboxTransaction(c -> ProcessedEventLedger.claim(c,
            eventId, "search", System.currentTimeMillis(), LEASE)));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aFreshClaimHeldElsewhereDefersToItsLeaseExpiry() {
    long t = 1_000_000;
    LedgerClaim.Claimed mine = assertInstanceOf(LedgerClaim.Claimed.class,
        a.outboxTransaction(c -> ProcessedEventLedger.claim(c, "e1", "forward", t, LEASE)));
    assertEquals(t, mine.startedAt());
    LedgerClaim.HeldElsewhere held = assertInstanceOf(LedgerClaim.HeldElsewhere.class,
        b.outboxTransaction(c -> ProcessedEventLedger.claim(c, "e1", "forward", t + LEASE - 1, LEASE)));
    assertEquals(t + LEASE, held.untilMs());
    // Handlers are independent: another handler of the same event is free.
    assertInstanceOf(LedgerClaim.Claimed.class,
        b.outboxTransaction(c -> ProcessedEventLedger.claim(c, "e1", "search", t + 1, LEASE)));
  }

  @Test
  void aCrashedClaimIsRetriedAfterTheLeaseAndTheStaleWorkerChangesNothing() throws Exception {
    long t = 1_000_000;
    LedgerClaim.Claimed stale = assertInstanceOf(LedgerClaim.Claimed.class,
        a.outboxTransaction(c -> ProcessedEventLedger.claim(c, "e2", "forward", t, LEASE)));
    // Worker a "crashes" (never finishes). After the 1800 s lease worker b takes over.
    LedgerClaim.Claimed fresh = assertInstanceOf(LedgerClaim.Claimed.class,
        b.outboxTransaction(c -> ProcessedEventLedger.claim(c, "e2", "forward", t + LEASE, LEASE)));
    assertEquals(t + LEASE, fresh.startedAt());
    // The stale worker comes back: its done and its release change nothing.
    assertFalse((boolean) a.outboxTransaction(c -> ProcessedEventLedger.done(c, "e2", "forward", stale.startedAt(), t + LEASE + 5)));
    assertFalse((boolean) a.outboxTransaction(c -> ProcessedEventLedger.release(c, "e2", "forward", stale.startedAt())));
    assertEquals(1, OutboxDb.count(db, "SELECT COUNT(*) FROM processed_events WHERE event_id = 'e2'"
        + " AND status = 'in_progress' AND started_at = ?", fresh.startedAt()));
    // The owner's release works; then the event is claimable again at once.
    assertTrue((boolean) b.outboxTransaction(c -> ProcessedEventLedger.release(c, "e2", "forward", fresh.startedAt())));
    assertInstanceOf(LedgerClaim.Claimed.class,
        a.outboxTransaction(c -> ProcessedEventLedger.claim(c, "e2", "forward", t + LEASE + 10, LEASE)));
  }

  @Test
  void staleDoneAfterTakeoverDoesNotMarkTheNewClaimDone() throws Exception {
    long t = 5_000_000;
    LedgerClaim.Claimed stale = (LedgerClaim.Claimed) a.outboxTransaction(
        c -> ProcessedEventLedger.claim(c, "e3", "search", t, LEASE));
    b.outboxTransaction(c -> ProcessedEventLedger.claim(c, "e3", "search", t + LEASE + 1, LEASE));
    assertFalse((boolean) a.outboxTransaction(c -> ProcessedEventLedger.done(c, "e3", "search", stale.startedAt(), t + LEASE + 2)));
    assertEquals(0, OutboxDb.count(db, "SELECT COUNT(*) FROM processed_events WHERE status = 'done'"));
  }

  @Test
  void rowsOlderThanThirtyDaysArePruned() throws Exception {
    long day = 24L * 3600 * 1000;
    long now = 100 * day;
    List<String> ids = new ArrayList<>(List.of("old", "new"));
    a.outboxTransaction(c -> ProcessedEventLedger.claim(c, ids.get(0), "search", now - 31 * day, LEASE));
    a.outboxTransaction(c -> ProcessedEventLedger.claim(c, ids.get(1), "search", now - 29 * day, LEASE));
    assertEquals(1, (int) a.outboxTransaction(c -> ProcessedEventLedger.prune(c, now, 100)));
    assertEquals(1, OutboxDb.count(db, "SELECT COUNT(*) FROM processed_events WHERE event_id = 'new'"));
  }
}
