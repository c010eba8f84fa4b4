package dev.cairn.store.mysql;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistOutcome;
import dev.cairn.store.StorageFullException;
import dev.cairn.store.StoreException;
import dev.cairn.store.WritePlan;
import dev.cairn.store.WriteRules;
import dev.cairn.store.feed.FeedChange;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/**
 * The MySQL side of a group commit for one tenant, reactive: in one transaction it locks the tenant's
 * {@code tenant_counters} row, reads what the batch touches ({@link MysqlSnapshotReader}), lets the
 * dialect-free {@link WriteRules} decide, writes the plan ({@link MysqlPlanWriter}) and its outbox rows
 * ({@link MysqlOutboxRows}) and change-feed rows ({@link MysqlFeedRows}), and moves {@code event_seq},
 * {@code queue_id} and {@code feed_seq} past the numbers it used.
 *
 * <p>The counter row lock comes first and is held to commit, so the writers of one tenant on every
 * pod run one after the other: the last seq read under the lock is the high water, the snapshot cannot
 * change under the rules, and seqs are handed out in commit order ("every seq below a seen seq is
 * committed", docs/decisions/0005-mysql-schema.md). Writers of different tenants never wait on each
 * other. Holds no connection and no state between calls; safe to share.
 */
public final class MysqlEventWriter {
  private final String tenantId;
  private final MysqlSnapshotReader reader;
  private final MysqlPlanWriter writer;
  private final MysqlOutboxRows outbox;
  private final MysqlFeedRows feed;

  public MysqlEventWriter(String tenantId) {
    this.tenantId = tenantId;
    this.reader = new MysqlSnapshotReader(tenantId);
    this.writer = new MysqlPlanWriter(tenantId);
    this.outbox = new MysqlOutboxRows(tenantId);
    this.feed = new MysqlFeedRows(tenantId);
  }

  /**
   * Persists {@code batch} (in order, as if one event after the other) in one transaction on a
   * connection of {@code pool}.
   *
   * @return a result per event (input order) and the feed's part, as {@code SqliteTenantStore.persist}:
   *     when the feed rows failed they were rolled back alone and {@code feed()} / {@code feedError()}
   *     carry them for the retry buffer; fails with a {@link StoreException} naming the tenant when
   *     the transaction failed (then nothing of the batch was written)
   */
  public Future<PersistOutcome> persist(Pool pool, List<NostrEvent> batch, long nowEpochSeconds) {
    if (batch.isEmpty()) {
      return Future.succeededFuture(PersistOutcome.of(List.of()));
    }
    return PooledConnections.inTransaction(pool, conn -> write(conn, batch, nowEpochSeconds))
        .recover(e -> {
          if (!(e instanceof CounterMissing)) {
            return Future.failedFuture(e);
          }
          // First write of the tenant: create its counter row in a transaction of its own, then write.
          // Creating it inside the write transaction could deadlock two pods' first writes (both
          // take a gap lock on the missing key, then both wait to insert into it).
          return pool.preparedQuery("INSERT IGNORE INTO tenant_counters(tenant_id) VALUES (?)")
              .execute(Tuple.of(tenantId))
              .compose(v -> PooledConnections.inTransaction(pool, conn -> write(conn, batch, nowEpochSeconds)));
        })
        .recover(e -> {
          String what = "persisting a batch of " + batch.size() + " events for tenant " + tenantId
              + " failed (nothing of it was written): " + e.getMessage();
          return Future.failedFuture(storageFull(e) ? new StorageFullException(what, e) : new StoreException(what, e));
        });
  }

  /** ER_DISK_FULL (1021), ER_RECORD_FILE_FULL (1114, "The table is full"): the server's disk or quota. */
  private static boolean storageFull(Throwable e) {
    return e instanceof io.vertx.mysqlclient.MySQLException m && (m.getErrorCode() == 1021 || m.getErrorCode() == 1114);
  }

  private Future<PersistOutcome> write(SqlConnection conn, List<NostrEvent> batch, long now) {
    return conn.preparedQuery(
            "SELECT event_seq, queue_id, feed_seq FROM tenant_counters WHERE tenant_id = ? FOR UPDATE")
        .execute(Tuple.of(tenantId))
        .compose(rows -> {
          if (rows.size() == 0) {
            return Future.failedFuture(new CounterMissing(tenantId));
          }
          Row counters = rows.iterator().next();
          long highWater = counters.getLong(0);
          long queueId = counters.getLong(1);
          long feedSeq = counters.getLong(2);
          // Plain (consistent) reads after the locking read: InnoDB takes a transaction's read view at
          // its first consistent read, here after the lock is held, so the snapshot sees everything
          // the previous holder committed. (Hence no START TRANSACTION WITH CONSISTENT SNAPSHOT.)
          return reader.fetch(conn, WriteRules.keysOf(batch)).compose(snapshot -> {
            WritePlan plan = WriteRules.plan(batch, snapshot, now, highWater);
            return writer.apply(conn, plan, System.currentTimeMillis()).compose(v -> {
              // The change's time for its outbox and feed rows, read as late as the transaction allows
              // (as SqliteTenantStore does): the batch's own writes are not the outbox's delay.
              long nowMs = System.currentTimeMillis();
              List<FeedChange> changes = FeedChange.of(batch, plan.results(), nowMs);
              return outbox.write(conn, plan.results(), nowMs, queueId)
                  .compose(lastQueueId -> feed.write(conn, changes, feedSeq)
                      .compose(f -> conn.preparedQuery(
                              "UPDATE tenant_counters SET event_seq = ?, queue_id = ?, feed_seq = ? WHERE tenant_id = ?")
                          .execute(Tuple.of(plan.highWater(), lastQueueId, f.lastSeq(), tenantId))
                          .map(x -> new PersistOutcome(plan.results(), f.error() == null ? List.of() : changes,
                              f.bounds(), f.error()))));
            });
          });
        });
  }

  /** The tenant has no counter row yet (rolls the transaction back; {@link #persist} creates it and retries). */
  private static final class CounterMissing extends RuntimeException {
    CounterMissing(String tenantId) {
      super("tenant " + tenantId + " has no tenant_counters row", null, false, false);
    }
  }
}
