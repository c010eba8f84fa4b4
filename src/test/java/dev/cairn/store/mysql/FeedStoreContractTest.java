package dev.cairn.store.mysql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistOutcome;
import dev.cairn.store.Removal;
import dev.cairn.store.RemovalReason;
import dev.cairn.store.SqliteTenantStore;
import dev.cairn.store.TenantWriters;
import dev.cairn.store.feed.FeedBounds;
import dev.cairn.store.feed.FeedChange;
import dev.cairn.store.feed.FeedPage;
import dev.cairn.store.feed.FeedRow;
import dev.cairn.store.feed.FeedSettings;
import dev.cairn.store.feed.FeedStore;
import dev.cairn.store.feed.SqliteFeedStore;
import dev.cairn.store.feed.SweepResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.opentest4j.TestAbortedException;

/**
 * The {@link FeedStore} contract on both dialects: SQLite ({@link SqliteFeedStore} over a store in a temp
 * dir) and MySQL ({@link MysqlFeedStore} on MariaDB at 127.0.0.1:3306 or {@code CAIRN_TEST_MYSQL_URL},
 * a database per test, dropped after). Only the MySQL cases are skipped when the server is unreachable
 * (the same reach-or-skip as {@link MysqlTestBase}, per case rather than per class, so SQLite still runs).
 * Then the MySQL-only parts: tenant scoping in one database, buffered inserts from two pods in commit
 * order, and the shared pool's pool-wide sweep claimed once per interval across pods.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class FeedStoreContractTest {
  enum Dialect { SQLITE, MYSQL }

  private static final long NOW = 1_700_000_000L;
  private static final String T = "t1";
  private static final String ALICE = "a".repeat(64);
  private static final String BOB = "b".repeat(64);
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final FeedSettings SETTINGS = new FeedSettings(Duration.ofHours(168), Duration.ofSeconds(15), 1000,
      TIMEOUT, 10_000, 1_000, 2, 5_000, 20, Duration.ofHours(1), Duration.ofSeconds(5));

  @TempDir
  Path dir;

  private Vertx vertx;
  private TestMysqlServer mysql;
  private TestAbortedException unreachable;
  private final List<AutoCloseable> cleanup = new ArrayList<>();
  private final AtomicInteger files = new AtomicInteger();
  private final AtomicInteger ids = new AtomicInteger(1000);

  @BeforeAll
  void startVertx() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void closeFixtures() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
    cleanup.clear();
  }

  @AfterAll
  void stop() throws Exception {
    if (mysql != null) {
      mysql.close();
    }
    await(vertx.close());
  }

  // -------------------------------------------------------------------------- the contract, both

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void insertsContinueTheWritersSeqsAndPagesNarrowByKindsAuthorsAndCursor(Dialect d) throws Exception {
    Db db = open(d);
    FeedStore feed = db.feed(T);
    assertBounds(1, 0, await(feed.bounds()), "empty: nothing retained, no seq yet");

    NostrEvent a1 = ev(1, ALICE, 100, 1);
    NostrEvent b1 = ev(2, BOB, 101, 1);
    NostrEvent a7 = ev(3, ALICE, 102, 7);
    PersistOutcome out = db.persist(T, List.of(a1, b1, a7));
    assertNull(out.feedError());
    assertEquals(3, out.feedBounds().high(), "the write transaction's own feed rows: seqs 1..3");

    long ts = 1_700_000_000_123L;
    FeedBounds afterInsert = await(feed.insert(List.of(
        FeedChange.deleted(ts, new Removal(id(9), 1, BOB, 0, RemovalReason.NIP09)),
        FeedChange.stored(ts, a1, storeSeq(out, 0)))));
    assertBounds(1, 5, afterInsert, "buffered changes continue after the writer's seqs");
    FeedBounds afterFlush = await(feed.flush(List.of(
        FeedChange.deleted(ts + 1, new Removal(a7.id(), 7, ALICE, storeSeq(out, 2), RemovalReason.EXPIRED)))));
    assertBounds(1, 6, afterFlush, "a flush too");
    assertBounds(1, 6, await(feed.bounds()), "bounds read back");

    FeedPage all = await(feed.page(0, 100, Set.of(), Set.of()));
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), seqs(all));
    assertFalse(all.full());
    assertEquals(6, all.scannedTo());
    FeedRow first = all.rows().get(0);
    assertEquals(FeedChange.STORED, first.type());
    assertArrayEquals(a1.json(), first.json(), "a stored row joins its event's JSON (which names the event)");
    FeedRow deleted = all.rows().get(3);
    assertEquals(List.of(FeedChange.DELETED, id(9), 1, BOB, "nip09", ts),
        List.of(deleted.type(), deleted.eventId(), deleted.kind(), deleted.pubkey(), deleted.reason(), deleted.ts()));
    assertArrayEquals(a1.json(), all.rows().get(4).json(), "a buffered stored row joins the JSON too");
    assertEquals("expired", all.rows().get(5).reason());

    assertEquals(List.of(3L, 6L), seqs(await(feed.page(0, 100, Set.of(7), Set.of()))), "kinds");
    assertEquals(List.of(1L, 3L, 5L, 6L), seqs(await(feed.page(0, 100, Set.of(), Set.of(ALICE)))), "authors");
    assertEquals(List.of(2L, 4L), seqs(await(feed.page(0, 100, Set.of(1), Set.of(BOB)))), "kinds and authors");
    assertEquals(List.of(1L, 2L, 4L, 5L), seqs(await(feed.page(0, 100, Set.of(1, 20), Set.of(ALICE, BOB)))));
    FeedPage none = await(feed.page(0, 100, Set.of(7), Set.of(BOB)));
    assertEquals(List.of(), none.rows());
    assertEquals(6, none.scannedTo(), "a short page scans to the high seq even when nothing matched");

    FeedPage mid = await(feed.page(2, 2, Set.of(), Set.of()));
    assertEquals(List.of(3L, 4L), seqs(mid), "after the cursor, at most limit");
    assertTrue(mid.full());
    assertEquals(4, mid.scannedTo());
    FeedPage narrowedMid = await(feed.page(1, 1, Set.of(), Set.of(ALICE)));
    assertEquals(List.of(3L), seqs(narrowedMid));
    assertEquals(3, narrowedMid.scannedTo(), "a full page scans to its last row, not the high seq");
    FeedPage tail = await(feed.page(6, 2, Set.of(), Set.of()));
    assertEquals(List.of(), tail.rows());
    assertFalse(tail.full());
    assertEquals(6, tail.scannedTo());
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void storedRowsOfReplacedEventsJoinTheJsonKeptAtRemoval(Dialect d) throws Exception {
    Db db = open(d);
    NostrEvent v1 = ev(1, ALICE, 100, 0);
    NostrEvent v2 = ev(2, ALICE, 200, 0);
    db.persist(T, List.of(v1));
    db.persist(T, List.of(v2));
    FeedPage page = await(db.feed(T).page(0, 100, Set.of(), Set.of()));
    assertEquals(List.of("stored", "stored", "deleted"), page.rows().stream().map(FeedRow::type).toList());
    assertArrayEquals(v1.json(), page.rows().get(0).json(), "v1 left the store: its JSON from removed_events");
    assertArrayEquals(v2.json(), page.rows().get(1).json());
    assertEquals("replaced", page.rows().get(2).reason());
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void sweepDeletesOnlyRowsOlderThanTheCutoffInCappedBatches(Dialect d) throws Exception {
    Db db = open(d);
    FeedStore feed = db.feed(T);
    await(feed.insert(changes(100, 7)));  // older than the cutoff
    await(feed.insert(changes(500, 4)));  // at the cutoff and after: kept

    SweepResult r = await(feed.sweep(500, 3, 2));
    assertEquals(List.of(6, 2, T), List.of(r.deleted(), r.batches(), r.scope()), "two batches of 3: the cap");
    assertEquals(List.of(106L, 500L, 501L, 502L, 503L), db.timestamps(T), "oldest first");
    assertBounds(7, 11, r.bounds(), "the bounds after the sweep");

    SweepResult next = await(feed.sweep(500, 3, 2));
    assertEquals(List.of(1, 1), List.of(next.deleted(), next.batches()), "the leftover, then a short batch ends it");
    assertEquals(List.of(500L, 501L, 502L, 503L), db.timestamps(T));
    assertEquals(0, await(feed.sweep(500, 3, 2)).deleted());
    assertBounds(8, 11, await(feed.bounds()), "high seq kept after its rows are gone");
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void resultsCompleteOnTheCallersContext(Dialect d) throws Exception {
    Db db = open(d);
    FeedStore feed = db.feed(T);
    Context caller = db.vertx().getOrCreateContext();
    assertSame(caller, onContext(caller, () -> feed.insert(changes(100, 2))), "insert");
    assertSame(caller, onContext(caller, () -> feed.flush(changes(100, 2))), "flush");
    assertSame(caller, onContext(caller, feed::bounds), "bounds");
    assertSame(caller, onContext(caller, () -> feed.page(0, 10, Set.of(), Set.of())), "page");
    assertSame(caller, onContext(caller, () -> feed.sweep(0, 10, 1)), "sweep");
  }

  // ---------------------------------------------------------------------------------- MySQL only

  @Test
  void pagesBoundsAndTheDedicatedSweepAreScopedByTenant() throws Exception {
    MysqlDb db = (MysqlDb) open(Dialect.MYSQL);
    FeedStore t1 = db.feed(T);
    FeedStore t2 = db.feed("t2");
    await(t2.insert(changes(100, 5)));
    await(t1.insert(changes(100, 3)));
    await(t2.insert(changes(900, 1)));
    assertBounds(1, 3, await(t1.bounds()), "t1's own seqs, from its own counter row");
    assertBounds(1, 6, await(t2.bounds()), "t2 alike");
    assertEquals(List.of(1L, 2L, 3L), seqs(await(t1.page(0, 100, Set.of(), Set.of()))));
    assertEquals(3, await(t1.page(0, 100, Set.of(), Set.of())).scannedTo());
    SweepResult r = await(t1.sweep(500, 100, 5));
    assertEquals(3, r.deleted(), "t1's old rows only");
    assertEquals(List.of(100L, 101L, 102L, 103L, 104L, 900L), db.timestamps("t2"), "t2 untouched");
  }

  @Test
  void bufferedInsertsFromTwoPodsTakeSeqsInCommitOrder() throws Exception {
    MysqlDb db = (MysqlDb) open(Dialect.MYSQL);
    FeedStore podA = db.feedOn(db.newPool(4), T, MysqlFeedPlacement.dedicated(db.name));
    FeedStore podB = db.feedOn(db.newPool(4), T, MysqlFeedPlacement.dedicated(db.name));
    MysqlEventWriter writer = new MysqlEventWriter(T);
    List<Future<?>> all = new ArrayList<>();
    List<List<FeedChange>> batches = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      List<FeedChange> batch = changes(1000 + 10 * i, 3);
      batches.add(batch);
      all.add((i % 2 == 0 ? podA : podB).insert(batch));
      if (i % 4 == 0) {
        all.add(writer.persist(db.pool, List.of(ev(i + 1, ALICE, 100 + i, 1)), NOW));
      }
    }
    await(Future.all(all));
    List<Row> rows = db.rows(T);
    assertEquals(65, rows.size());
    for (int i = 0; i < rows.size(); i++) {
      assertEquals(i + 1, rows.get(i).getLong(0), "seqs 1..n, no gap, no duplicate");
    }
    assertEquals(65L, db.counter(T), "feed_seq moved past every row");
    // Each buffered batch is one contiguous block in its own order (one transaction under the lock).
    for (List<FeedChange> batch : batches) {
      int at = -1;
      for (int i = 0; i < rows.size(); i++) {
        if (rows.get(i).getLong(1) == batch.get(0).ts() && "deleted".equals(rows.get(i).getString(2))) {
          at = i;
          break;
        }
      }
      assertTrue(at >= 0);
      for (int k = 0; k < batch.size(); k++) {
        assertEquals(batch.get(k).ts(), rows.get(at + k).getLong(1), "batch at " + batch.get(0).ts() + " contiguous");
      }
    }
  }

  @Test
  void sharedPoolIsSweptPoolWideByOnePodPerInterval() throws Exception {
    MysqlDb db = (MysqlDb) open(Dialect.MYSQL);
    Pool meta = db.metaPool();
    AtomicLong clock = new AtomicLong(10_000_000);
    Duration interval = Duration.ofMinutes(30);
    SharedSweepClaims claimsA = new SharedSweepClaims(meta, "pod-a", interval, clock::get);
    SharedSweepClaims claimsB = new SharedSweepClaims(meta, "pod-b", interval, clock::get);
    FeedStore aT1 = db.feedOn(db.newPool(2), T, MysqlFeedPlacement.shared(db.name, claimsA));
    FeedStore bT2 = db.feedOn(db.newPool(2), "t2", MysqlFeedPlacement.shared(db.name, claimsB));
    FeedStore bCold = db.feedOn(db.pool, "cold", MysqlFeedPlacement.dedicated(db.name));
    await(aT1.insert(changes(100, 4)));
    await(bT2.insert(changes(100, 3)));
    await(bCold.insert(changes(100, 2)));  // an idle tenant: only a pool-wide sweep reaches its rows
    await(aT1.insert(changes(900, 1)));

    SweepResult a = await(aT1.sweep(500, 4, 10));
    assertEquals("shared_pool:" + db.name, a.scope());
    assertEquals(9, a.deleted(), "pool-wide: every tenant's old rows, the idle one's too");
    assertEquals(List.of(900L), db.timestamps(T));
    assertEquals(List.of(), db.timestamps("cold"));
    assertBounds(5, 5, a.bounds(), "the sweeping tenant's bounds");
    assertEquals("pod-a", db.claimedBy("feed_sweep:" + db.name));

    await(bT2.insert(changes(200, 2)));
    clock.addAndGet(interval.toMillis() - 1);
    SweepResult b = await(bT2.sweep(500, 4, 10));
    assertEquals(List.of(0, 0), List.of(b.deleted(), b.batches()), "pod b within pod a's interval: no sweep");
    assertEquals(List.of(200L, 201L), db.timestamps("t2"));

    clock.addAndGet(1);
    SweepResult b2 = await(bT2.sweep(500, 4, 10));
    assertEquals(2, b2.deleted(), "the interval passed: pod b wins the pool");
    assertEquals("pod-b", db.claimedBy("feed_sweep:" + db.name));

    // Pod-local pre-filter: pod a asked within the interval; even with the meta row gone it does not ask again.
    await(bT2.insert(changes(300, 1)));
    assertEquals(0, await(aT1.sweep(500, 4, 10)).deleted(), "pod b holds the interval");
    await(meta.query("DELETE FROM shared_maintenance_state").execute());
    assertEquals(0, await(aT1.sweep(500, 4, 10)).deleted(), "pod a tried within its interval: no meta query");
    assertEquals(List.of(300L), db.timestamps("t2"));
  }

  @Test
  void podsRacingForOnePoolClaimItOnce() throws Exception {
    MysqlDb db = (MysqlDb) open(Dialect.MYSQL);
    db.metaPool();
    AtomicLong clock = new AtomicLong(50_000_000);
    for (int round = 0; round < 3; round++) {
      List<Future<Boolean>> tries = new ArrayList<>();
      for (int p = 0; p < 6; p++) {
        // a new claims object per pod and round: no pod-local pre-filter, only the meta DB decides
        tries.add(new SharedSweepClaims(db.newMetaPool(1), "pod-" + p, Duration.ofMinutes(30), clock::get)
            .tryClaim("feed_sweep:racing"));
      }
      await(Future.all(tries));
      assertEquals(1, tries.stream().filter(Future::result).count(), "round " + round + ": one winner");
      clock.addAndGet(Duration.ofMinutes(30).toMillis());
    }
  }

  // ------------------------------------------------------------------------------------ fixtures

  /** One tenant database of a dialect, with the dialect's writer for real events. */
  private interface Db {
    Vertx vertx();

    FeedStore feed(String tenant);

    PersistOutcome persist(String tenant, List<NostrEvent> batch) throws Exception;

    /** {@code feed_events.ts} of the tenant, by seq. */
    List<Long> timestamps(String tenant) throws Exception;
  }

  private Db open(Dialect d) throws Exception {
    return d == Dialect.SQLITE ? new SqliteDb() : new MysqlDb();
  }

  private final class SqliteDb implements Db {
    final SqliteTenantStore store;
    final TenantWriters writers;
    final WorkerExecutor readers;
    final WorkerExecutor flushPool;

    SqliteDb() {
      store = SqliteTenantStore.open(dir.resolve("t" + files.incrementAndGet() + ".db"), 2);
      // the writers' own context, not the caller's: the store must hand results back to the caller
      writers = new TenantWriters(vertx.getOrCreateContext(), "feed-contract", 1);
      readers = vertx.createSharedWorkerExecutor("feed-contract-readers", 2);
      flushPool = vertx.createSharedWorkerExecutor("feed-contract-flush", 2);
      cleanup.add(() -> {
        writers.shutdown(5000);
        await(readers.close());
        await(flushPool.close());
        store.close();
      });
    }

    @Override
    public Vertx vertx() {
      return vertx;
    }

    @Override
    public FeedStore feed(String tenant) {
      return new SqliteFeedStore(tenant, store, writers, readers, flushPool, SETTINGS);
    }

    @Override
    public PersistOutcome persist(String tenant, List<NostrEvent> batch) {
      return store.persist(batch, NOW);
    }

    @Override
    public List<Long> timestamps(String tenant) {
      return store.withReaderConnection(c -> {
        List<Long> out = new ArrayList<>();
        try (ResultSet rs = c.prepare("SELECT ts FROM feed_events ORDER BY seq").executeQuery()) {
          while (rs.next()) {
            out.add(rs.getLong(1));
          }
        }
        return out;
      });
    }
  }

  private final class MysqlDb implements Db {
    final String name;
    final Pool pool;
    final List<Pool> pools = new ArrayList<>();
    String metaName;
    Pool meta;

    MysqlDb() throws Exception {
      TestMysqlServer server = mysql();
      name = server.createDatabase("_feed");
      cleanup.add(() -> {
        for (Pool p : pools) {
          await(p.close());
        }
        server.dropDatabase(name);
        server.dropDatabase(metaName);
      });
      pool = newPool(4);
      await(new MysqlMigrator("db/mysql").migrate(pool));
    }

    Pool newPool(int size) {
      Pool p = mysql.pool(name, size);
      pools.add(p);
      return p;
    }

    /** A migrated meta DB beside the pool database. */
    Pool metaPool() throws Exception {
      metaName = mysql.createDatabase("_meta");
      meta = newMetaPool(4);
      await(new MysqlMigrator("db/mysql-meta").migrate(meta));
      return meta;
    }

    /** Another pool on the meta DB (another pod's). */
    Pool newMetaPool(int size) {
      Pool p = mysql.pool(metaName, size);
      pools.add(p);
      return p;
    }

    FeedStore feedOn(Pool p, String tenant, MysqlFeedPlacement placement) {
      return new MysqlFeedStore(p, tenant, placement, TIMEOUT);
    }

    @Override
    public Vertx vertx() {
      return mysql.vertx;
    }

    @Override
    public FeedStore feed(String tenant) {
      return feedOn(pool, tenant, MysqlFeedPlacement.dedicated(name));
    }

    @Override
    public PersistOutcome persist(String tenant, List<NostrEvent> batch) throws Exception {
      return await(new MysqlEventWriter(tenant).persist(pool, batch, NOW));
    }

    @Override
    public List<Long> timestamps(String tenant) throws Exception {
      return rows(tenant).stream().map(r -> r.getLong(1)).toList();
    }

    /** seq, ts, type of the tenant's rows, by seq. */
    List<Row> rows(String tenant) throws Exception {
      List<Row> out = new ArrayList<>();
      await(pool.preparedQuery("SELECT seq, ts, type FROM feed_events WHERE tenant_id = ? ORDER BY seq")
          .execute(Tuple.of(tenant))).forEach(out::add);
      return out;
    }

    long counter(String tenant) throws Exception {
      return await(pool.preparedQuery("SELECT feed_seq FROM tenant_counters WHERE tenant_id = ?")
          .execute(Tuple.of(tenant))).iterator().next().getLong(0);
    }

    String claimedBy(String job) throws Exception {
      return await(meta.preparedQuery(
          "SELECT claimed_by FROM shared_maintenance_state WHERE name = ?").execute(Tuple.of(job)))
          .iterator().next().getString(0);
    }
  }

  /** The MySQL server, reached once; unreachable skips each MySQL case (not the SQLite ones). */
  private TestMysqlServer mysql() {
    if (unreachable != null) {
      throw unreachable;
    }
    if (mysql == null) {
      try {
        mysql = TestMysqlServer.reach("the MySQL FeedStore cases");
      } catch (TestAbortedException e) {
        unreachable = e;
        throw e;
      }
    }
    return mysql;
  }

  // ------------------------------------------------------------------------------------- helpers

  /** Calls {@code call} on {@code ctx} and returns the context its result completed on. */
  private static Context onContext(Context ctx, Supplier<Future<?>> call) throws Exception {
    Promise<Context> seen = Promise.promise();
    ctx.runOnContext(v -> call.get().onComplete(ar -> {
      if (ar.failed()) {
        seen.fail(ar.cause());
      } else {
        seen.complete(Vertx.currentContext());
      }
    }));
    return await(seen.future());
  }

  /** {@code n} deleted changes at ts {@code from}, {@code from + 1}, ... (distinct ids, alternating authors). */
  private List<FeedChange> changes(long from, int n) {
    List<FeedChange> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(FeedChange.deleted(from + i,
          new Removal(id(ids.incrementAndGet()), 1, i % 2 == 0 ? ALICE : BOB, 0, RemovalReason.NIP09)));
    }
    return out;
  }

  private static long storeSeq(PersistOutcome out, int i) {
    return ((dev.cairn.store.PersistResult.Stored) out.results().get(i)).seq();
  }

  private static void assertBounds(long oldest, long high, FeedBounds b, String why) {
    assertEquals(List.of(oldest, high), List.of(b.oldest(), b.high()), why);
  }

  private static List<Long> seqs(FeedPage p) {
    return p.rows().stream().map(FeedRow::seq).toList();
  }

  private static String id(long n) {
    return String.format("%064x", n);
  }

  private static NostrEvent ev(long n, String pubkey, long createdAt, int kind) {
    return NostrEvent.of(id(n), pubkey, createdAt, kind, List.of(), "content " + n, "c".repeat(128));
  }

  private static <T> T await(Future<T> f) throws Exception {
    return TestMysqlServer.await(f);
  }
}
