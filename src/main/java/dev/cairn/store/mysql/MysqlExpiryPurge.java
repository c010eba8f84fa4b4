package dev.cairn.store.mysql;

import dev.cairn.store.Removal;
import dev.cairn.store.RemovalReason;
import dev.cairn.store.StoreException;
import dev.cairn.store.StoredRow;
import dev.cairn.store.WritePlan;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * NIP-40 on MySQL: deletes a tenant's expired events, oldest expiration first, in one transaction under
 * the tenant's counter row (so the EventDeleted outbox rows get queue ids in commit order, as every
 * other writer's do), the same rows the SQLite purge writes.
 */
final class MysqlExpiryPurge {
  private final String tenantId;
  private final MysqlPlanWriter writer;
  private final MysqlOutboxRows outbox;

  MysqlExpiryPurge(String tenantId) {
    this.tenantId = tenantId;
    this.writer = new MysqlPlanWriter(tenantId);
    this.outbox = new MysqlOutboxRows(tenantId);
  }

  Future<List<Removal>> purge(Pool pool, long now, int maxRows) {
    if (maxRows <= 0) {
      return Future.succeededFuture(List.of());
    }
    return PooledConnections.inTransaction(pool, conn -> conn.preparedQuery(
            "SELECT event_seq, queue_id FROM tenant_counters WHERE tenant_id = ? FOR UPDATE")
        .execute(Tuple.of(tenantId))
        .compose(counters -> {
          if (counters.size() == 0) {
            return Future.succeededFuture(List.<Removal>of()); // never written: nothing can have expired
          }
          Row c = counters.iterator().next();
          long highWater = c.getLong(0);
          long queueId = c.getLong(1);
          return conn.preparedQuery(MysqlSnapshotReader.COLUMNS + " WHERE tenant_id = ? AND expiration <= ?"
                  + " ORDER BY expiration LIMIT ?")
              .execute(Tuple.of(tenantId, now, maxRows))
              .compose(rows -> {
                List<Removal> out = new ArrayList<>(rows.size());
                List<WritePlan.Op> ops = new ArrayList<>(rows.size());
                for (Row r : rows) {
                  StoredRow row = MysqlSnapshotReader.storedRow(r);
                  ops.add(new WritePlan.Remove(row, RemovalReason.EXPIRED));
                  out.add(new Removal(row.id(), row.kind(), row.pubkey(), row.seq(), RemovalReason.EXPIRED));
                }
                if (out.isEmpty()) {
                  return Future.succeededFuture(out);
                }
                long nowMs = System.currentTimeMillis();
                return writer.apply(conn, new WritePlan(List.of(), ops, highWater), nowMs)
                    .compose(v -> outbox.writeRemovals(conn, out, nowMs, queueId))
                    .compose(lastQueueId -> conn.preparedQuery(
                            "UPDATE tenant_counters SET queue_id = ? WHERE tenant_id = ?")
                        .execute(Tuple.of(lastQueueId, tenantId)))
                    .map(v -> out);
              });
        }))
        .recover(e -> Future.failedFuture(new StoreException("NIP-40 purge for tenant " + tenantId + " failed: "
            + e.getMessage(), e)));
  }
}
