package dev.cairn.store.mysql;

import dev.cairn.store.PersistResult;
import dev.cairn.store.Removal;
import dev.cairn.store.StoreException;
import dev.cairn.store.outbox.DomainEvent;
import dev.cairn.store.outbox.DomainEventIds;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * The outbox rows of one group commit on MySQL, the same domain events OutboxWriter writes on SQLite
 * (an EventStored naming its store seq, an EventDeleted per removal), in the write transaction so they
 * commit or roll back with the data. Row ids continue {@code tenant_counters.queue_id}, read under the
 * same row lock as the event seq, so they too are handed out in commit order (the search indexer's
 * cursor relies on it; AUTO_INCREMENT ids could commit out of order).
 */
final class MysqlOutboxRows {
  private static final String INSERT = "INSERT INTO event_queue"
      + "(tenant_id, id, event_id, type, body, status, attempts, available_at, created_at, stored_seq)"
      + " VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)";

  private final String tenantId;
  private final DomainEventIds ids = new DomainEventIds();

  MysqlOutboxRows(String tenantId) {
    this.tenantId = tenantId;
  }

  /** Writes the rows of {@code results}; returns the last queue id used ({@code lastQueueId} if none). */
  Future<Long> write(SqlConnection conn, List<PersistResult> results, long nowMs, long lastQueueId) {
    List<Tuple> rows = new ArrayList<>();
    long id = lastQueueId;
    for (PersistResult r : results) {
      if (!(r instanceof PersistResult.Stored s)) {
        continue;
      }
      DomainEvent stored = DomainEvent.stored(ids.next(nowMs), tenantId, s.seq(), nowMs);
      rows.add(Tuple.of(tenantId, ++id, stored.eventId(), stored.type(), "", nowMs, nowMs, s.seq()));
      id = addRemovals(rows, s.removed(), nowMs, id);
    }
    return insert(conn, rows, lastQueueId, id);
  }

  /** Writes an EventDeleted row per removal (the NIP-40 purge); returns the last queue id used. */
  Future<Long> writeRemovals(SqlConnection conn, List<Removal> removals, long nowMs, long lastQueueId) {
    List<Tuple> rows = new ArrayList<>(removals.size());
    long id = addRemovals(rows, removals, nowMs, lastQueueId);
    return insert(conn, rows, lastQueueId, id);
  }

  private long addRemovals(List<Tuple> rows, List<Removal> removals, long nowMs, long id) {
    for (Removal removal : removals) {
      DomainEvent d = DomainEvent.deleted(ids.next(nowMs), tenantId, removal, nowMs);
      rows.add(Tuple.of(tenantId, ++id, d.eventId(), d.type(), d.body(), nowMs, nowMs, null));
    }
    return id;
  }

  private Future<Long> insert(SqlConnection conn, List<Tuple> rows, long lastQueueId, long id) {
    if (rows.isEmpty()) {
      return Future.succeededFuture(lastQueueId);
    }
    long last = id;
    return MultiRowInsert.run(conn, INSERT, rows).map(v -> last)
        .recover(e -> Future.failedFuture(new StoreException("outbox rows " + (lastQueueId + 1) + ".." + last
            + " of tenant " + tenantId + " not written: " + BatchErrors.describe(e), e)));
  }
}
