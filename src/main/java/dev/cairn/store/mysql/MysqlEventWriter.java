package dev.cairn.store.mysql;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistResult;
import dev.cairn.store.StoreException;
import dev.cairn.store.WritePlan;
import dev.cairn.store.WriteRules;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/**
 * The MySQL side of a group commit for one tenant, reactive: in one transaction it locks the tenant's
 * {@code tenant_counters} row, reads what the batch touches ({@link MysqlSnapshotReader}), lets the
 * dialect-free {@link WriteRules} decide, writes the plan ({@link MysqlPlanWriter}) and its outbox rows
 * ({@link MysqlOutboxRows}), and moves {@code event_seq} and {@code queue_id} past the numbers it used.
 * Not written yet: the change feed's rows ({@code feed_events}, {@code feed_seq}).
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

  public MysqlEventWriter(String tenantId) {
    this.tenantId = tenantId;
    this.reader = new MysqlSnapshotReader(tenantId);
    this.writer = new MysqlPlanWriter(tenantId);
    this.outbox = new MysqlOutboxRows(tenantId);
  }

  /**
   * Persists {@code batch} (in order, as if one event after the other) in one transaction on a
   * connection of {@code pool}.
   *
   * @return a result per event, input order; fails with a {@link StoreException} naming the tenant when
   *     the transaction failed (then nothing of the batch was written)
   */
  public Future<List<PersistResult>> persist(Pool pool, List<NostrEvent> batch, long nowEpochSeconds) {
    if (batch.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    return pool.withTransaction(conn -> write(conn, batch, nowEpochSeconds))
        .recover(e -> {
          if (!(e instanceof CounterMissing)) {
            return Future.failedFuture(e);
          }
          // First write of the tenant: create its counter row in a transaction of its own, then write.
          // Creating it inside the write transaction could deadlock two pods' first writes (both
          // take a gap lock on the missing key, then both wait to insert into it).
          return pool.preparedQuery("INSERT IGNORE INTO tenant_counters(tenant_id) VALUES (?)")
              .execute(Tuple.of(tenantId))
              .compose(v -> pool.withTransaction(conn -> write(conn, batch, nowEpochSeconds)));
        })
        .recover(e -> Future.failedFuture(e instanceof StoreException ? e : new StoreException(
            "persisting a batch of " + batch.size() + " events for tenant " + tenantId + " failed (nothing of it"
                + " was written): " + e.getMessage(), e)));
  }

  private Future<List<PersistResult>> write(SqlConnection conn, List<NostrEvent> batch, long now) {
    return conn.preparedQuery("SELECT event_seq, queue_id FROM tenant_counters WHERE tenant_id = ? FOR UPDATE")
        .execute(Tuple.of(tenantId))
        .compose(rows -> {
          if (rows.size() == 0) {
            return Future.failedFuture(new CounterMissing(tenantId));
          }
          long highWater = rows.iterator().next().getLong(0);
          long queueId = rows.iterator().next().getLong(1);
          long nowMs = System.currentTimeMillis();
          return reader.fetch(conn, WriteRules.keysOf(batch))
              .compose(snapshot -> {
                WritePlan plan = WriteRules.plan(batch, snapshot, now, highWater);
                return writer.apply(conn, plan, nowMs)
                    .compose(v -> outbox.write(conn, plan.results(), nowMs, queueId))
                    .compose(lastQueueId -> plan.highWater() == highWater && lastQueueId == queueId
                        ? Future.succeededFuture()
                        : conn.preparedQuery("UPDATE tenant_counters SET event_seq = ?, queue_id = ? WHERE tenant_id = ?")
                            .execute(Tuple.of(plan.highWater(), lastQueueId, tenantId)))
                    .map(v -> plan.results());
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
