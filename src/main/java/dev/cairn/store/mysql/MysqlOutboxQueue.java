package dev.cairn.store.mysql;

import dev.cairn.store.outbox.DomainEvent;
import dev.cairn.store.outbox.OutboxQueue;
import dev.cairn.store.outbox.OutboxRow;
import dev.cairn.store.outbox.Settlement;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The outbox table's claim, settle and prune SQL on MySQL (the semantics of {@link OutboxQueue} on
 * SQLite), every statement scoped by {@code tenant_id}. Runs inside the caller's transaction on
 * {@code conn}. Times are epoch ms.
 */
final class MysqlOutboxQueue {
  private static final String COLUMNS = "SELECT id, event_id, type, body, attempts, stored_seq, created_at"
      + " FROM event_queue WHERE tenant_id = ? AND ";
  private static final String STALE = COLUMNS + "status = 'processing' AND claimed_at <= ? ORDER BY claimed_at LIMIT ?";
  private static final String DUE = COLUMNS + "status = 'pending' AND available_at <= ? ORDER BY available_at, id LIMIT ?";
  private static final String NEXT_DUE = "SELECT (SELECT MIN(available_at) FROM event_queue WHERE tenant_id = ?"
      + " AND status = 'pending'), (SELECT MIN(claimed_at) FROM event_queue WHERE tenant_id = ?"
      + " AND status = 'processing')";
  private static final String DONE = "UPDATE event_queue SET status = 'done', claimed_at = NULL, last_error = NULL"
      + " WHERE tenant_id = ? AND id = ? AND status = 'processing' AND claimed_at = ?";
  private static final String BACK = "UPDATE event_queue SET status = ?, attempts = ?, available_at = ?,"
      + " claimed_at = NULL, last_error = ? WHERE tenant_id = ? AND id = ? AND status = 'processing' AND claimed_at = ?";
  private static final String PRUNE_DONE = "DELETE FROM event_queue WHERE tenant_id = ? AND status = 'done'"
      + " AND created_at < ? ORDER BY id LIMIT ?";

  /** A row as selected, before it is ours. */
  private record Picked(long id, String eventId, String type, String body, int attempts, long storedSeq,
      long createdAt) {}

  private final String tenant;
  private final MysqlClaimLock lock;

  MysqlOutboxQueue(String tenant, MysqlClaimLock lock) {
    this.tenant = tenant;
    this.lock = lock;
  }

  /**
   * Claims up to {@code limit} due rows (stale claims first, then pending rows in due order), locking
   * them as it reads ({@link MysqlClaimLock}): rows another pod's open claim holds are skipped (or
   * waited for), and a row committed as claimed no longer matches. With {@code markDone} they go
   * straight to done and the answer carries only the count.
   */
  Future<OutboxQueue.Claim> claim(SqlConnection conn, long now, int limit, long leaseMs, boolean withBody,
      boolean markDone) {
    List<Picked> picked = new ArrayList<>();
    return pick(conn, STALE, now - leaseMs, limit, picked)
        .compose(v -> picked.size() < limit ? pick(conn, DUE, now, limit - picked.size(), picked) : Future.succeededFuture())
        .compose(v -> mark(conn, picked, now, markDone))
        .compose(marked -> {
          if (markDone) {
            return nextDue(conn, leaseMs).map(next -> new OutboxQueue.Claim(List.of(), next, marked));
          }
          return rows(conn, picked, now, withBody)
              .compose(rows -> nextDue(conn, leaseMs).map(next -> new OutboxQueue.Claim(rows, next)));
        });
  }

  private Future<Void> pick(SqlConnection conn, String select, long bound, int limit, List<Picked> into) {
    return conn.preparedQuery(select + lock.clause).execute(Tuple.of(tenant, bound, limit)).map(rs -> {
      for (Row r : rs) {
        Buffer body = r.getBuffer(3);
        Long seq = r.getLong(5);
        into.add(new Picked(r.getLong(0), r.getString(1), r.getString(2), body == null ? "" : body.toString(),
            r.getInteger(4), seq == null ? 0 : seq, r.getLong(6)));
      }
      return null;
    });
  }

  /** One UPDATE for the picked rows (they are locked by us): claimed at {@code now}, or done. */
  private Future<Integer> mark(SqlConnection conn, List<Picked> picked, long now, boolean done) {
    if (picked.isEmpty()) {
      return Future.succeededFuture(0);
    }
    Tuple args = Tuple.tuple();
    StringBuilder sql = new StringBuilder("UPDATE event_queue SET ");
    if (done) {
      sql.append("status = 'done', claimed_at = NULL, last_error = NULL");
    } else {
      sql.append("status = 'processing', claimed_at = ?");
      args.addLong(now);
    }
    sql.append(" WHERE tenant_id = ? AND id IN (");
    args.addString(tenant);
    for (int i = 0; i < picked.size(); i++) {
      sql.append(i == 0 ? "?" : ",?");
      args.addLong(picked.get(i).id());
    }
    return conn.preparedQuery(sql.append(')').toString()).execute(args).map(RowSet::rowCount);
  }

  /** The claimed rows in id order; an EventStored row naming its event gets the stored body when asked. */
  private Future<List<OutboxRow>> rows(SqlConnection conn, List<Picked> picked, long now, boolean withBody) {
    List<Long> seqs = new ArrayList<>();
    for (Picked p : picked) {
      if (withBody && p.body().isEmpty() && p.storedSeq() > 0) {
        seqs.add(p.storedSeq());
      }
    }
    Map<Long, byte[]> json = new HashMap<>();
    return payloads(conn, "events", seqs, json)
        .compose(v -> payloads(conn, "removed_events", seqs.stream().filter(s -> !json.containsKey(s)).toList(), json))
        .map(v -> {
          List<OutboxRow> out = new ArrayList<>(picked.size());
          for (Picked p : picked) {
            long seq = p.storedSeq();
            byte[] body = OutboxQueue.NO_BODY;
            if (p.body().isEmpty()) {
              if (withBody) {
                body = DomainEvent.storedBody(p.eventId(), tenant, seq, p.createdAt(), json.get(seq));
              }
            } else {
              if (seq == 0) {
                seq = new JsonObject(p.body()).getLong("seq", 0L);
              }
              body = p.body().getBytes(StandardCharsets.UTF_8);
            }
            out.add(new OutboxRow(p.id(), p.eventId(), p.type(), body, p.attempts(), now, seq));
          }
          out.sort(Comparator.comparingLong(OutboxRow::id));
          return out;
        });
  }

  /** The stored JSON of {@code seqs} from {@code table} (events, or removed_events for events that left). */
  private Future<Void> payloads(SqlConnection conn, String table, List<Long> seqs, Map<Long, byte[]> into) {
    if (seqs.isEmpty()) {
      return Future.succeededFuture();
    }
    Tuple args = Tuple.of(tenant);
    StringBuilder sql = new StringBuilder("SELECT seq, json FROM ").append(table).append(" WHERE tenant_id = ? AND seq IN (");
    for (int i = 0; i < seqs.size(); i++) {
      sql.append(i == 0 ? "?" : ",?");
      args.addLong(seqs.get(i));
    }
    return conn.preparedQuery(sql.append(')').toString()).execute(args).map(rs -> {
      for (Row r : rs) {
        into.put(r.getLong(0), r.getBuffer(1).getBytes());
      }
      return null;
    });
  }

  /** The earliest pending row's due time, or the earliest claim's lease end; -1 when neither. */
  private Future<Long> nextDue(SqlConnection conn, long leaseMs) {
    return conn.preparedQuery(NEXT_DUE).execute(Tuple.of(tenant, tenant)).map(rs -> {
      Row r = rs.iterator().next();
      Number pending = (Number) r.getValue(0);
      Number claimed = (Number) r.getValue(1);
      long next = pending == null ? -1 : pending.longValue();
      if (claimed != null) {
        long leaseEnd = claimed.longValue() + leaseMs;
        next = next < 0 ? leaseEnd : Math.min(next, leaseEnd);
      }
      return next;
    });
  }

  /** Applies each settlement whose claim ({@code claimed_at}) is still ours; one batch per statement. */
  Future<OutboxQueue.Settled> settle(SqlConnection conn, List<Settlement> settlements) {
    List<Tuple> done = new ArrayList<>();
    List<Tuple> back = new ArrayList<>();
    List<Settlement.Kind> backKinds = new ArrayList<>();
    for (Settlement s : settlements) {
      if (s.kind() == Settlement.Kind.DONE) {
        done.add(Tuple.of(tenant, s.rowId(), s.claimedAt()));
      } else {
        back.add(Tuple.of(s.kind() == Settlement.Kind.DEAD_LETTER ? "dead_lettered" : "pending", s.attempts(),
            s.availableAt(), s.error(), tenant, s.rowId(), s.claimedAt()));
        backKinds.add(s.kind());
      }
    }
    return batch(conn, DONE, done).compose(doneCounts -> batch(conn, BACK, back).map(backCounts -> {
      int left = doneCounts.stream().mapToInt(Integer::intValue).sum();
      int dead = 0;
      for (int i = 0; i < backCounts.size(); i++) {
        if (backKinds.get(i) == Settlement.Kind.DEAD_LETTER) {
          dead += backCounts.get(i);
        }
      }
      return new OutboxQueue.Settled(left + dead, dead);
    }));
  }

  /** Rows changed per tuple of a batch (the client chains one result per tuple). */
  private static Future<List<Integer>> batch(SqlConnection conn, String sql, List<Tuple> tuples) {
    if (tuples.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    return conn.preparedQuery(sql).executeBatch(tuples).map(first -> {
      List<Integer> counts = new ArrayList<>(tuples.size());
      for (RowSet<Row> rs = first; rs != null; rs = rs.next()) {
        counts.add(rs.rowCount());
      }
      if (counts.size() != tuples.size()) {
        throw new IllegalStateException("batch of " + tuples.size() + " answered " + counts.size() + " results");
      }
      return counts;
    });
  }

  /** Deletes up to {@code max} done rows older than the retention. */
  Future<Integer> pruneDone(io.vertx.sqlclient.SqlClient conn, long now, int max) {
    return conn.preparedQuery(PRUNE_DONE).execute(Tuple.of(tenant, now - OutboxQueue.DONE_RETENTION_MS, max))
        .map(RowSet::rowCount);
  }
}
