package dev.cairn.store.mysql;

import dev.cairn.store.outbox.CallerContext;
import dev.cairn.store.outbox.LedgerClaim;
import dev.cairn.store.outbox.OutboxQueue;
import dev.cairn.store.outbox.OutboxStore;
import dev.cairn.store.outbox.Settlement;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
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
  /** InnoDB's deadlock error (ER_LOCK_DEADLOCK): the server rolled the claim back, try it again. */
  private static final int DEADLOCK = 1213;
  private static final int CLAIM_TRIES = 3;

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
    return here(claiming(conn -> queue.claim(conn, now, limit, leaseMs, withBody, false), CLAIM_TRIES));
  }

  @Override
  public Future<OutboxQueue.Claim> claimAndMarkDone(long now, int limit, long leaseMs) {
    return here(claiming(conn -> queue.claim(conn, now, limit, leaseMs, false, true), CLAIM_TRIES)
        .onSuccess(c -> backlog.addAndGet(-c.settled())));
  }

  @Override
  public Future<OutboxQueue.Settled> settle(List<Settlement> settlements) {
    if (settlements.isEmpty()) {
      return Future.succeededFuture(new OutboxQueue.Settled(0, 0));
    }
    List<Settlement> copy = List.copyOf(settlements);
    return here(pool.withTransaction(conn -> queue.settle(conn, copy))
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
   * A claim in a READ COMMITTED transaction: its locking reads then lock only the rows they return,
   * with no gap locks, so claimers, settlers and the write path's inserts of new rows do not block each
   * other over index gaps (under REPEATABLE READ two claimers' gap locks can deadlock on the claim's
   * UPDATE). A deadlock the server still reports rolled everything back: the claim is run again.
   */
  private <T> Future<T> claiming(Function<SqlConnection, Future<T>> work, int tries) {
    Future<T> run = pool.withConnection(conn -> conn.query("SET TRANSACTION ISOLATION LEVEL READ COMMITTED").execute()
        .compose(v -> conn.begin())
        .compose(tx -> work.apply(conn).compose(
            result -> tx.commit().map(result),
            e -> tx.rollback().transform(x -> Future.<T>failedFuture(e)))));
    return run.recover(e -> e instanceof MySQLException m && m.getErrorCode() == DEADLOCK && tries > 1
        ? claiming(work, tries - 1) : Future.failedFuture(e));
  }

  private static <T> Future<T> here(Future<T> result) {
    return CallerContext.on(Vertx.currentContext(), result);
  }
}
