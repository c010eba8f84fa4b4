package dev.cairn.store.mysql;

import dev.cairn.store.outbox.CallerContext;
import dev.cairn.store.outbox.LedgerClaim;
import dev.cairn.store.outbox.OutboxQueue;
import dev.cairn.store.outbox.OutboxStore;
import dev.cairn.store.outbox.Settlement;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.mysqlclient.MySQLBatchException;
import io.vertx.mysqlclient.MySQLException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * One tenant's outbox on MySQL/MariaDB/TiDB, reactive over a vertx-mysql-client {@link Pool}; several
 * pods may run one each against the same tenant. Each call is its own short transaction (or autocommit
 * statement): there is no writer lane to share, and concurrent calls use the pool's connections. Claims
 * lock what they pick ({@link MysqlClaimLock}), so two pods never hold one row at once; the ledger's
 * primary key decides who runs a handler. Results complete on the caller's context.
 */
public final class MysqlOutboxStore implements OutboxStore {
  /** InnoDB's deadlock error (ER_LOCK_DEADLOCK): the server rolled the transaction back, try it again. */
  private static final int DEADLOCK = 1213;
  private static final int TRIES = 3;

  private final Pool pool;
  private final String tenant;
  private final MysqlOutboxQueue queue;
  private final MysqlLedger ledger;
  /**
   * Backlog as this pod knows it: set by {@link #refreshBacklog} (the table is shared with other pods'
   * writers and settlers), then followed by this pod's own settles and {@link #enqueued} writes.
   */
  private final AtomicLong backlog = new AtomicLong();

  public MysqlOutboxStore(Pool pool, String tenant, MysqlClaimLock lock) {
    this.pool = pool;
    this.tenant = tenant;
    this.queue = new MysqlOutboxQueue(tenant, lock);
    this.ledger = new MysqlLedger(tenant);
  }

  /** A store for {@code tenant} with the claim lock the server supports and the backlog counted. */
  public static Future<MysqlOutboxStore> open(Pool pool, String tenant) {
    return MysqlClaimLock.detect(pool)
        .map(lock -> new MysqlOutboxStore(pool, tenant, lock))
        .compose(store -> store.refreshBacklog().map(n -> store));
  }

  @Override
  public Future<OutboxQueue.Claim> claimDue(long now, int limit, long leaseMs, boolean withBody) {
    return here(readCommitted(conn -> queue.claim(conn, now, limit, leaseMs, withBody, false), TRIES));
  }

  @Override
  public Future<OutboxQueue.Claim> claimAndMarkDone(long now, int limit, long leaseMs) {
    return here(readCommitted(conn -> queue.claim(conn, now, limit, leaseMs, false, true), TRIES)
        .onSuccess(c -> backlog.addAndGet(-c.settled())));
  }

  @Override
  public Future<OutboxQueue.Settled> settle(List<Settlement> settlements) {
    if (settlements.isEmpty()) {
      return Future.succeededFuture(new OutboxQueue.Settled(0, 0));
    }
    List<Settlement> copy = List.copyOf(settlements);
    // Like a claim (below): a settle under REPEATABLE READ took a gap lock on the due index as its rows
    // left it, which deadlocked with a claim's UPDATE (seen in CI, MariaDB 10.11); left to the lease,
    // the rolled-back settle's rows then waited outbox.claim_lease (600 s) to be claimed again.
    return here(readCommitted(conn -> queue.settle(conn, copy), TRIES)
        .onSuccess(s -> backlog.addAndGet(-s.left())));
  }

  @Override
  public Future<LedgerClaim> claimLedger(String eventId, String handler, long now, long leaseMs) {
    return here(ledger.claim(pool, eventId, handler, now, leaseMs));
  }

  @Override
  public Future<Boolean> finishLedger(String eventId, String handler, long startedAt, boolean done, long now) {
    return here(done ? ledger.done(pool, eventId, handler, startedAt, now)
        : ledger.release(pool, eventId, handler, startedAt));
  }

  @Override
  public Future<Pruned> prune(long now, int max) {
    return here(queue.pruneDone(pool, now, max)
        .compose(rows -> ledger.prune(pool, now, max).map(ledgerRows -> new Pruned(rows, ledgerRows))));
  }

  @Override
  public long backlog() {
    return backlog.get();
  }

  /** Counts the tenant's undelivered rows (pending or claimed, by any pod) and resets the counter to it. */
  public Future<Long> refreshBacklog() {
    return here(pool.preparedQuery("SELECT COUNT(*) FROM event_queue WHERE tenant_id = ?"
            + " AND status IN ('pending', 'processing')").execute(Tuple.of(tenant))
        .map(rs -> {
          long n = rs.iterator().next().getLong(0);
          backlog.set(n);
          return n;
        }));
  }

  /** {@code n} outbox rows were committed by this pod's write path. */
  public void enqueued(int n) {
    backlog.addAndGet(n);
  }

  /**
   * A claim or a settle in a READ COMMITTED transaction: its locking reads and updates then lock only
   * the rows they touch, with no gap locks, so claimers, settlers and the write path's inserts of new
   * rows do not block each other over index gaps (under REPEATABLE READ two claimers' gap locks can
   * deadlock on the claim's UPDATE, and a settle's with a claim's). A deadlock the server still reports
   * rolled everything back: the transaction is run again (a settle's updates match only rows still
   * claimed at the time it names, so running it twice changes nothing more).
   */
  private <T> Future<T> readCommitted(Function<SqlConnection, Future<T>> work, int tries) {
    Future<T> run = PooledConnections.onConnection(pool, conn -> conn.query("SET TRANSACTION ISOLATION LEVEL READ COMMITTED").execute()
        .compose(v -> conn.begin())
        .compose(tx -> work.apply(conn).compose(
            result -> tx.commit().map(result),
            e -> tx.rollback().transform(x -> Future.<T>failedFuture(e)))));
    return run.recover(e -> deadlock(e) && tries > 1 ? readCommitted(work, tries - 1) : Future.failedFuture(e));
  }

  /** Whether the server rolled the transaction back as a deadlock victim (a batch reports it per row). */
  static boolean deadlock(Throwable e) {
    if (e instanceof MySQLBatchException b) {
      return b.getIterationError().values().stream().anyMatch(MysqlOutboxStore::deadlock);
    }
    return e instanceof MySQLException m && m.getErrorCode() == DEADLOCK;
  }

  private static <T> Future<T> here(Future<T> result) {
    return CallerContext.on(Vertx.currentContext(), result);
  }
}
