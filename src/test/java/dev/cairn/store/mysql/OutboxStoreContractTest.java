package dev.cairn.store.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.outbox.LedgerClaim;
import dev.cairn.store.outbox.OutboxQueue;
import dev.cairn.store.outbox.OutboxRow;
import dev.cairn.store.outbox.OutboxStore;
import dev.cairn.store.outbox.Settlement;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The OutboxStore contract on both dialects (SQLite in a temp dir; MySQL on the MariaDB test server,
 * skipped when unreachable): rows written by each dialect's real write path, then claim with a lease,
 * settle done / retry with backoff / dead-letter, stale-claim recovery, the ledger's claim, takeover
 * and owner token, pruning; and two pods claiming and running handlers at once.
 */
class OutboxStoreContractTest {
  private static final long LEASE = 600_000;
  private static final long LEDGER_LEASE = 1_800_000;
  private static final long DAY = 24 * 3600 * 1000L;
  private static final String ALICE = "a".repeat(64);

  enum Dialect { SQLITE, MYSQL }

  /** The MySQL server, reached once for the class (the MySQL cases are skipped when it is not there). */
  private static TestMysqlServer mysql;

  @TempDir Path dir;

  @AfterAll
  static void closeServer() {
    if (mysql != null) {
      mysql.close();
      mysql = null;
    }
  }

  private OutboxFixture open(Dialect d) throws Exception {
    if (d == Dialect.SQLITE) {
      return new SqliteOutboxFixture(dir);
    }
    if (mysql == null) {
      mysql = TestMysqlServer.reach("the MySQL outbox store");
    }
    return new MysqlOutboxFixture(mysql);
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void claimLeasesDueRowsInIdOrderWithTheStoredBodyAndSettleIsConditionedOnTheClaim(Dialect d) throws Exception {
    try (OutboxFixture f = open(d)) {
      List<NostrEvent> events = List.of(ev(1, 1, 100), ev(2, 1, 101), ev(3, 1, 102));
      f.write(events);
      assertEquals(3, f.store().backlog());
      long now = System.currentTimeMillis() + 1000;
      OutboxQueue.Claim claim = await(f.store().claimDue(now, 10, LEASE, true));
      assertEquals(3, claim.rows().size());
      for (int i = 0; i < 3; i++) {
        OutboxRow r = claim.rows().get(i);
        assertEquals(i + 1, r.id(), "id order");
        assertEquals("EventStored", r.type());
        assertEquals(now, r.claimedAt());
        assertEquals(i + 1, r.seq());
        JsonObject body = new JsonObject(Buffer.buffer(r.body()));
        assertEquals(r.eventId(), body.getString("event_id"));
        assertEquals(OutboxFixture.TENANT, body.getString("tenant"));
        assertEquals(events.get(i).id(), body.getJsonObject("payload").getString("id"), "the stored event is the payload");
        assertEquals(new OutboxFixture.RowState("processing", 0, f.row(r.id()).availableAt(), now, null), f.row(r.id()));
      }
      assertEquals(now + LEASE, claim.nextDueMs(), "next due: the claims' lease end");
      // leased: neither pod gets them again before the lease ends
      assertTrue(await(f.store().claimDue(now + 1, 10, LEASE, true)).rows().isEmpty());
      assertTrue(await(f.secondPod().claimDue(now + LEASE - 1, 10, LEASE, true)).rows().isEmpty());

      OutboxRow first = claim.rows().get(0);
      assertEquals(new OutboxQueue.Settled(1, 0), await(f.store().settle(List.of(Settlement.done(first)))));
      assertEquals("done", f.row(first.id()).status());
      assertNull(f.row(first.id()).claimedAt());
      assertEquals(2, f.store().backlog());
      // settling again (or with another claim's token) changes nothing
      assertEquals(new OutboxQueue.Settled(0, 0), await(f.store().settle(List.of(Settlement.done(first)))));
      OutboxRow second = claim.rows().get(1);
      OutboxRow notOurs = new OutboxRow(second.id(), second.eventId(), second.type(), second.body(), 0, now - 1);
      assertEquals(new OutboxQueue.Settled(0, 0), await(f.store().settle(List.of(Settlement.done(notOurs)))));
      assertEquals("processing", f.row(second.id()).status());
      assertEquals(2, f.store().backlog());
    }
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void retryBacksOffWithAnAttemptSpentAndTheLastAttemptDeadLetters(Dialect d) throws Exception {
    try (OutboxFixture f = open(d)) {
      f.write(List.of(ev(1, 1, 100)));
      long t = System.currentTimeMillis() + 1000;
      OutboxRow r = one(f.store().claimDue(t, 10, LEASE, true));
      assertEquals(0, r.attempts());
      assertEquals(new OutboxQueue.Settled(0, 0), await(f.store().settle(List.of(Settlement.retry(r, t + 5000, "boom")))));
      assertEquals(new OutboxFixture.RowState("pending", 1, t + 5000, null, "boom"), f.row(r.id()));
      assertEquals(1, f.store().backlog(), "a retry stays in the backlog");
      OutboxQueue.Claim early = await(f.store().claimDue(t + 4999, 10, LEASE, true));
      assertTrue(early.rows().isEmpty(), "not before its backoff");
      assertEquals(t + 5000, early.nextDueMs());
      OutboxRow again = one(f.secondPod().claimDue(t + 5000, 10, LEASE, true));
      assertEquals(1, again.attempts());
      // a deferral spends no attempt
      await(f.secondPod().settle(List.of(Settlement.defer(again, t + 9000, "held"))));
      assertEquals(new OutboxFixture.RowState("pending", 1, t + 9000, null, "held"), f.row(r.id()));
      OutboxRow last = one(f.store().claimDue(t + 9000, 10, LEASE, true));
      assertEquals(new OutboxQueue.Settled(1, 1), await(f.store().settle(List.of(Settlement.deadLetter(last, "boom 2")))));
      OutboxFixture.RowState dead = f.row(r.id());
      assertEquals("dead_lettered", dead.status());
      assertEquals(2, dead.attempts());
      assertEquals("boom 2", dead.lastError());
      assertEquals(0, f.store().backlog());
      OutboxQueue.Claim never = await(f.store().claimDue(t + 365 * DAY, 10, LEASE, true));
      assertTrue(never.rows().isEmpty(), "a dead letter is never claimed again");
      assertEquals(-1, never.nextDueMs());
    }
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void aStaleClaimIsTakenOverAndTheStaleClaimerCanNoLongerSettle(Dialect d) throws Exception {
    try (OutboxFixture f = open(d)) {
      f.write(List.of(ev(1, 1, 100), ev(2, 1, 100)));
      long t0 = System.currentTimeMillis() + 1000;
      OutboxQueue.Claim first = await(f.store().claimDue(t0, 1, LEASE, true));
      OutboxRow stale = first.rows().get(0);
      assertEquals(1, stale.id());
      assertEquals(2, one(f.secondPod().claimDue(t0, 10, LEASE, true)).id(), "the other pod gets the other row");
      assertTrue(await(f.secondPod().claimDue(t0 + LEASE - 1, 10, LEASE, true)).rows().isEmpty());
      OutboxQueue.Claim recovered = await(f.secondPod().claimDue(t0 + LEASE, 1, LEASE, true));
      OutboxRow mine = recovered.rows().get(0);
      assertEquals(stale.id(), mine.id(), "stale claims come first");
      assertEquals(t0 + LEASE, mine.claimedAt());
      assertEquals(stale.eventId(), mine.eventId());
      // the crashed claimer wakes up: its settlements no longer apply
      assertEquals(new OutboxQueue.Settled(0, 0), await(f.store().settle(List.of(Settlement.deadLetter(stale, "late")))));
      assertEquals(new OutboxQueue.Settled(0, 0), await(f.store().settle(List.of(Settlement.done(stale)))));
      assertEquals(new OutboxFixture.RowState("processing", 0, f.row(1).availableAt(), t0 + LEASE, null), f.row(1));
      assertEquals(new OutboxQueue.Settled(1, 0), await(f.secondPod().settle(List.of(Settlement.done(mine)))));
      assertEquals("done", f.row(1).status());
    }
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void claimAndMarkDoneSettlesInTheClaimAndRemovedEventsKeepTheirBody(Dialect d) throws Exception {
    try (OutboxFixture f = open(d)) {
      NostrEvent v1 = ev(1, 0, 100);
      NostrEvent v2 = ev(2, 0, 200); // replaces v1: EventStored v1, EventStored v2, EventDeleted v1
      f.write(List.of(v1));
      f.write(List.of(v2));
      long now = System.currentTimeMillis() + 1000;
      OutboxQueue.Claim claim = await(f.store().claimDue(now, 10, LEASE, true));
      assertEquals(List.of("EventStored", "EventStored", "EventDeleted"), claim.rows().stream().map(OutboxRow::type).toList());
      // v1 left the store: its EventStored body comes from removed_events
      assertEquals(v1.id(), new JsonObject(Buffer.buffer(claim.rows().get(0).body())).getJsonObject("payload").getString("id"));
      JsonObject deleted = new JsonObject(Buffer.buffer(claim.rows().get(2).body())).getJsonObject("payload");
      assertEquals(v1.id(), deleted.getString("id"));
      assertEquals("replaced", deleted.getString("reason"));
      f.write(List.of(ev(3, 1, 300), ev(4, 1, 301)));
      assertEquals(5, f.store().backlog());
      OutboxQueue.Claim done = await(f.store().claimAndMarkDone(now, 10, LEASE));
      assertTrue(done.rows().isEmpty());
      assertEquals(2, done.settled(), "only the due, unclaimed rows");
      assertEquals("done", f.row(4).status());
      assertEquals("done", f.row(5).status());
      assertEquals("processing", f.row(1).status());
      assertEquals(3, f.store().backlog());
      assertEquals(now + LEASE, done.nextDueMs());
    }
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void ledgerClaimIsExclusiveTakenOverWhenStaleAndFinishedOnlyWithItsToken(Dialect d) throws Exception {
    try (OutboxFixture f = open(d)) {
      long t = System.currentTimeMillis();
      LedgerClaim.Claimed mine = assertInstanceOf(LedgerClaim.Claimed.class,
          await(f.store().claimLedger("e1", "search", t, LEDGER_LEASE)));
      assertEquals(t, mine.startedAt());
      assertEquals(new LedgerClaim.HeldElsewhere(t + LEDGER_LEASE),
          await(f.secondPod().claimLedger("e1", "search", t + 1, LEDGER_LEASE)));
      assertInstanceOf(LedgerClaim.Claimed.class, await(f.secondPod().claimLedger("e1", "forward", t + 1, LEDGER_LEASE)),
          "another handler of the same event is another key");
      assertFalse(await(f.store().finishLedger("e1", "search", t - 1, true, t + 2)), "not our token");
      assertTrue(await(f.store().finishLedger("e1", "search", t, true, t + 2)));
      assertEquals("done", f.ledger("e1", "search"));
      assertEquals(new LedgerClaim.AlreadyDone(), await(f.secondPod().claimLedger("e1", "search", t + 3, LEDGER_LEASE)));
      assertEquals(new LedgerClaim.AlreadyDone(),
          await(f.secondPod().claimLedger("e1", "search", t + 10 * LEDGER_LEASE, LEDGER_LEASE)), "done is never taken over");

      // takeover after the lease; the old owner's done/release no longer apply
      LedgerClaim.Claimed old = assertInstanceOf(LedgerClaim.Claimed.class,
          await(f.store().claimLedger("e2", "forward", t, LEDGER_LEASE)));
      assertInstanceOf(LedgerClaim.HeldElsewhere.class, await(f.secondPod().claimLedger("e2", "forward", t + LEDGER_LEASE - 1, LEDGER_LEASE)));
      LedgerClaim.Claimed fresh = assertInstanceOf(LedgerClaim.Claimed.class,
          await(f.secondPod().claimLedger("e2", "forward", t + LEDGER_LEASE, LEDGER_LEASE)));
      assertEquals(t + LEDGER_LEASE, fresh.startedAt());
      assertFalse(await(f.store().finishLedger("e2", "forward", old.startedAt(), true, t + LEDGER_LEASE + 5)));
      assertFalse(await(f.store().finishLedger("e2", "forward", old.startedAt(), false, t + LEDGER_LEASE + 5)));
      assertEquals("in_progress", f.ledger("e2", "forward"));
      // a failed handler releases: the next claim gets it
      assertTrue(await(f.secondPod().finishLedger("e2", "forward", fresh.startedAt(), false, t + LEDGER_LEASE + 6)));
      assertNull(f.ledger("e2", "forward"));
      assertInstanceOf(LedgerClaim.Claimed.class, await(f.store().claimLedger("e2", "forward", t + LEDGER_LEASE + 7, LEDGER_LEASE)));
    }
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void pruneDeletesOnlyDoneRowsAndLedgerRowsPastRetention(Dialect d) throws Exception {
    try (OutboxFixture f = open(d)) {
      f.write(List.of(ev(1, 1, 100), ev(2, 1, 101)));
      long now = System.currentTimeMillis() + 1000;
      OutboxRow r = await(f.store().claimDue(now, 1, LEASE, true)).rows().get(0);
      await(f.store().settle(List.of(Settlement.done(r))));
      await(f.store().claimLedger("old", "search", now - 31 * DAY, LEDGER_LEASE));
      await(f.store().claimLedger("new", "search", now - 29 * DAY, LEDGER_LEASE));
      assertEquals(new OutboxStore.Pruned(0, 1), await(f.store().prune(now, 100)), "rows are young, one ledger row is old");
      assertEquals(new OutboxStore.Pruned(1, 1), await(f.store().prune(now + 31 * DAY, 100)));
      assertNull(f.row(1));
      assertEquals("pending", f.row(2).status(), "undelivered rows are never pruned");
      assertEquals(0, f.ledgerRows());
    }
  }

  /**
   * Two pods (MySQL: two pools) each run three claim loops at once over 150 rows; for every claimed row
   * both pods try the handler's ledger claim, as a redelivery would. Every row must be claimed exactly
   * once and every (handler, event) run exactly once.
   */
  @ParameterizedTest
  @EnumSource(Dialect.class)
  void twoPodsClaimEveryRowOnceAndRunEveryHandlerOnce(Dialect d) throws Exception {
    try (OutboxFixture f = open(d)) {
      int n = 150;
      for (int b = 0; b < n / 50; b++) {
        List<NostrEvent> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          batch.add(ev(1000 + b * 50 + i, 1, 1000 + b * 50 + i));
        }
        f.write(batch);
      }
      Map<Long, AtomicInteger> claims = new ConcurrentHashMap<>();
      Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
      List<Future<Void>> loops = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        loops.add(claimLoop(f.store(), f.secondPod(), claims, runs));
        loops.add(claimLoop(f.secondPod(), f.store(), claims, runs));
      }
      await(Future.all(loops));
      assertEquals(n, claims.size(), "every row claimed");
      claims.forEach((id, c) -> assertEquals(1, c.get(), "row " + id + " claimed " + c.get() + " times"));
      assertEquals(n, runs.size(), "every handler ran");
      runs.forEach((key, c) -> assertEquals(1, c.get(), key + " ran " + c.get() + " times"));
      for (long id = 1; id <= n; id++) {
        assertEquals("done", f.row(id).status());
      }
      assertEquals(n, f.ledgerRows());
      assertEquals(0, f.backlogNow(), "nothing left undelivered");
    }
  }

  /** Claims small batches until none is left: ledger claim on both pods per row, run, mark done, settle. */
  private static Future<Void> claimLoop(OutboxStore pod, OutboxStore other, Map<Long, AtomicInteger> claims,
      Map<String, AtomicInteger> runs) {
    return pod.claimDue(System.currentTimeMillis() + 1000, 7, LEASE, false).compose(claim -> {
      if (claim.rows().isEmpty()) {
        return Future.succeededFuture();
      }
      List<Future<Settlement>> settled = new ArrayList<>();
      for (OutboxRow r : claim.rows()) {
        claims.computeIfAbsent(r.id(), k -> new AtomicInteger()).incrementAndGet();
        long now = System.currentTimeMillis();
        Future<LedgerClaim> a = pod.claimLedger(r.eventId(), "search", now, LEDGER_LEASE);
        Future<LedgerClaim> b = other.claimLedger(r.eventId(), "search", now, LEDGER_LEASE);
        settled.add(Future.all(a, b).compose(both -> {
          List<Future<Boolean>> finished = new ArrayList<>();
          for (Future<LedgerClaim> c : List.of(a, b)) {
            if (c.result() instanceof LedgerClaim.Claimed mine) {
              runs.computeIfAbsent("search/" + r.eventId(), k -> new AtomicInteger()).incrementAndGet();
              finished.add((c == a ? pod : other).finishLedger(r.eventId(), "search", mine.startedAt(), true, now));
            }
          }
          return Future.all(finished).map(x -> Settlement.done(r));
        }));
      }
      return Future.all(settled)
          .compose(all -> pod.settle(settled.stream().map(Future::result).toList()))
          .compose(s -> claimLoop(pod, other, claims, runs));
    });
  }

  @Test
  void mysqlStatementsAreScopedByTenant() throws Exception {
    try (OutboxFixture f = open(Dialect.MYSQL)) {
      MysqlOutboxFixture m = (MysqlOutboxFixture) f;
      f.write(List.of(ev(1, 1, 100)));
      // another tenant in the same database: its row has the same id 1
      await(m.writerFor("other").persist(m.pool(), List.of(ev(2, 1, 100)), System.currentTimeMillis() / 1000));
      MysqlOutboxStore other = await(MysqlOutboxStore.open(m.pool(), "other"));
      assertEquals(1, other.backlog());
      long now = System.currentTimeMillis() + 1000;
      OutboxRow mine = one(f.store().claimDue(now, 10, LEASE, true));
      assertEquals(1, mine.id());
      assertEquals(OutboxFixture.TENANT, new JsonObject(Buffer.buffer(mine.body())).getString("tenant"));
      OutboxRow theirs = one(other.claimDue(now, 10, LEASE, true));
      assertEquals(1, theirs.id());
      assertEquals("other", new JsonObject(Buffer.buffer(theirs.body())).getString("tenant"));
      assertEquals(ev(2, 1, 100).id(), new JsonObject(Buffer.buffer(theirs.body())).getJsonObject("payload").getString("id"));
      // same id, same claim token: settling tenant acme's row 1 leaves tenant other's row 1 alone
      assertEquals(new OutboxQueue.Settled(1, 0), await(f.store().settle(List.of(Settlement.done(mine)))));
      assertEquals("processing", await(m.pool().preparedQuery("SELECT status FROM event_queue WHERE tenant_id = 'other'"
          + " AND id = 1").execute()).iterator().next().getString(0));
      await(f.store().claimLedger("e", "search", now, LEDGER_LEASE));
      assertInstanceOf(LedgerClaim.Claimed.class, await(other.claimLedger("e", "search", now, LEDGER_LEASE)));
      assertEquals(new OutboxStore.Pruned(1, 1), await(f.store().prune(now + 31 * DAY, 100)));
      assertEquals(new OutboxQueue.Settled(1, 0), await(other.settle(List.of(Settlement.done(theirs)))));
    }
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void resultsCompleteOnTheCallersContext(Dialect d) throws Exception {
    Vertx caller = Vertx.vertx();
    try (OutboxFixture f = open(d)) {
      f.write(List.of(ev(1, 1, 100)));
      Context ctx = caller.getOrCreateContext();
      Promise<Boolean> claimOnCaller = Promise.promise();
      Promise<Boolean> ledgerOnCaller = Promise.promise();
      ctx.runOnContext(v -> {
        f.store().claimDue(System.currentTimeMillis() + 1000, 10, LEASE, true)
            .onComplete(ar -> claimOnCaller.complete(ar.succeeded() && Vertx.currentContext() == ctx));
        f.store().claimLedger("e", "search", 1, LEDGER_LEASE)
            .onComplete(ar -> ledgerOnCaller.complete(ar.succeeded() && Vertx.currentContext() == ctx));
      });
      assertTrue(await(claimOnCaller.future()), "claim answered on the caller's context");
      assertTrue(await(ledgerOnCaller.future()), "ledger claim answered on the caller's context");
    } finally {
      await(caller.close());
    }
  }

  @Test
  void tidbGetsAPlainForUpdateBecauseItsSkipLockedTakesNoLock() {
    assertEquals(MysqlClaimLock.WAIT, MysqlClaimLock.forVersion("8.0.11-TiDB-v8.5.6"));
    assertEquals(MysqlClaimLock.SKIP_LOCKED, MysqlClaimLock.forVersion("10.11.19-MariaDB-0+deb12u1"));
    assertEquals(MysqlClaimLock.SKIP_LOCKED, MysqlClaimLock.forVersion("8.0.36"));
  }

  private static OutboxRow one(Future<OutboxQueue.Claim> claim) throws Exception {
    List<OutboxRow> rows = await(claim).rows();
    assertEquals(1, rows.size(), "one row claimed: " + rows);
    return rows.get(0);
  }

  /** A kind-{@code kind} event by Alice with an id that follows {@code n} (the stores do not verify ids or signatures). */
  private static NostrEvent ev(long n, int kind, long createdAt) {
    return NostrEvent.of(String.format("%064x", n), ALICE, createdAt, kind, List.of(), "content " + n, "c".repeat(128));
  }

  private static <T> T await(Future<T> f) throws Exception {
    return TestMysqlServer.await(f);
  }
}
