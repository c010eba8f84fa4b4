package dev.cairn.store.mysql;

import dev.cairn.nostr.Hex;
import dev.cairn.store.StoreException;
import dev.cairn.store.feed.CallerContext;
import dev.cairn.store.feed.FeedBounds;
import dev.cairn.store.feed.FeedChange;
import dev.cairn.store.feed.FeedPage;
import dev.cairn.store.feed.FeedRow;
import dev.cairn.store.feed.FeedStore;
import dev.cairn.store.feed.SweepLoop;
import dev.cairn.store.feed.SweepResult;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One tenant's change feed on MySQL/MariaDB/TiDB, reactive over the tenant's database {@link Pool}
 * (dedicated or a shared pool: every statement names {@code tenant_id}, except the shared pool's
 * pool-wide sweep). Buffered changes take their seqs from the tenant's {@code tenant_counters} row
 * under {@code FOR UPDATE} ({@link MysqlFeedRows#writeAlone}), so they follow the writers' feed rows in
 * commit order on every pod. Holds no connection between calls; results complete on the caller's context.
 *
 * <p>{@code timeout} ({@code feed.insert_timeout}) bounds inserts and each sweep batch from the client
 * side: the future fails and the caller buffers the changes, but the server may still finish the
 * statement (there is no portable per-statement timeout for DML on MySQL/MariaDB/TiDB), so a timed-out
 * insert that commits late is delivered twice; consumers treat rows as idempotent hints (CONTRACT 4).
 */
public final class MysqlFeedStore implements FeedStore {
  private static final String HIGH = "SELECT feed_seq FROM tenant_counters WHERE tenant_id = ?";
  private static final String BOUNDS = "SELECT (" + HIGH + "), (SELECT MIN(seq) FROM feed_events WHERE tenant_id = ?)";
  private static final String CREATE_COUNTERS = "INSERT IGNORE INTO tenant_counters(tenant_id) VALUES (?)";
  // A stored row joins its event's JSON: from the store, or from removed_events once it left it.
  private static final String PAGE = "SELECT f.seq, f.ts, f.type, f.event_id, f.kind, f.pubkey, f.reason,"
      + " COALESCE(f.json, e.json, r.json) FROM feed_events f"
      + " LEFT JOIN events e ON e.tenant_id = f.tenant_id AND e.seq = f.store_seq"
      + " LEFT JOIN removed_events r ON r.tenant_id = f.tenant_id AND r.seq = f.store_seq"
      + " WHERE f.tenant_id = ? AND f.seq > ?";
  // ORDER BY ts: oldest first, like SQLite's sweep, so a capped sweep never leaves an old row behind a
  // newer hole (and the statement is deterministic for replication).
  private static final String SWEEP_TENANT_REMOVED =
      "DELETE FROM removed_events WHERE tenant_id = ? AND removed_at < ? ORDER BY removed_at LIMIT ?";
  private static final String SWEEP_TENANT_FEED =
      "DELETE FROM feed_events WHERE tenant_id = ? AND ts < ? ORDER BY ts LIMIT ?";
  private static final String SWEEP_POOL_REMOVED =
      "DELETE FROM removed_events WHERE removed_at < ? ORDER BY removed_at LIMIT ?";
  private static final String SWEEP_POOL_FEED = "DELETE FROM feed_events WHERE ts < ? ORDER BY ts LIMIT ?";

  private final Pool pool;
  private final String tenantId;
  private final MysqlFeedPlacement placement;
  private final long timeoutMs;
  private final MysqlFeedRows rows;

  public MysqlFeedStore(Pool pool, String tenantId, MysqlFeedPlacement placement, Duration timeout) {
    this.pool = pool;
    this.tenantId = tenantId;
    this.placement = placement;
    this.timeoutMs = timeout.toMillis();
    this.rows = new MysqlFeedRows(tenantId);
  }

  // ------------------------------------------------------------------------------------- inserts

  @Override
  public Future<FeedBounds> insert(List<FeedChange> changes) {
    if (changes.isEmpty()) {
      return bounds();
    }
    Future<FeedBounds> f = PooledConnections.inTransaction(pool, conn -> rows.writeAlone(conn, changes)).recover(e -> {
      if (!(e instanceof MysqlFeedRows.CounterMissing)) {
        return Future.failedFuture(e);
      }
      // No counter row yet: create it in a transaction of its own (inside the locking one, two pods'
      // first inserts could deadlock on the gap lock), then insert again.
      return pool.preparedQuery(CREATE_COUNTERS).execute(Tuple.of(tenantId))
          .compose(v -> PooledConnections.inTransaction(pool, conn -> rows.writeAlone(conn, changes)));
    });
    return CallerContext.deliver(bounded(f, "inserting " + changes.size() + " feed changes"));
  }

  /** Reactive: a flush is the same insert (no thread of this pod waits on the tenant's database). */
  @Override
  public Future<FeedBounds> flush(List<FeedChange> changes) {
    return insert(changes);
  }

  // --------------------------------------------------------------------------------------- reads

  @Override
  public Future<FeedBounds> bounds() {
    // One statement, one snapshot: the high seq and the oldest row agree.
    return CallerContext.deliver(pool.preparedQuery(BOUNDS).execute(Tuple.of(tenantId, tenantId)).map(rs -> {
      Row r = rs.iterator().next();
      long high = r.getLong(0) == null ? 0 : r.getLong(0);
      Long oldest = r.getLong(1);
      return new FeedBounds(oldest == null ? high + 1 : oldest, high);
    }).recover(e -> failed("reading the feed bounds", e)));
  }

  @Override
  public Future<FeedPage> page(long after, int limit, Set<Integer> kinds, Set<String> authors) {
    StringBuilder text = new StringBuilder(PAGE);
    Tuple params = Tuple.of(tenantId, after);
    if (!kinds.isEmpty()) {
      text.append(" AND f.kind IN (").append("?,".repeat(kinds.size() - 1)).append("?)");
      kinds.forEach(params::addInteger);
    }
    if (!authors.isEmpty()) {
      List<Buffer> keys = new ArrayList<>();
      for (String a : authors) {
        if (Hex.isLowerHex(a, 64)) { // anything else matches no stored pubkey, as on SQLite
          keys.add(Buffer.buffer(Hex.decode(a)));
        }
      }
      if (keys.isEmpty()) {
        text.append(" AND 1 = 0");
      } else {
        text.append(" AND f.pubkey IN (").append("?,".repeat(keys.size() - 1)).append("?)");
        keys.forEach(params::addValue);
      }
    }
    text.append(" ORDER BY f.seq LIMIT ?");
    params.addInteger(limit);
    // One transaction: InnoDB's REPEATABLE READ gives the rows and the high seq one snapshot, so a short
    // page's scannedTo never passes a row that snapshot could not see.
    return CallerContext.deliver(PooledConnections.inTransaction(pool, conn -> conn.preparedQuery(text.toString()).execute(params)
        .compose(rs -> {
          List<FeedRow> out = new ArrayList<>(rs.size());
          for (Row r : rs) {
            String type = r.getString(2);
            if (FeedChange.STORED.equals(type)) { // the frame is the event's JSON (FeedRow)
              Buffer json = r.getBuffer(7);
              out.add(new FeedRow(r.getLong(0), r.getLong(1), type, null, 0, null, null,
                  json == null ? null : json.getBytes()));
            } else {
              out.add(new FeedRow(r.getLong(0), r.getLong(1), type, Hex.encode(r.getBuffer(3).getBytes()),
                  r.getInteger(4), Hex.encode(r.getBuffer(5).getBytes()), r.getString(6), null));
            }
          }
          long last = out.isEmpty() ? after : out.get(out.size() - 1).seq();
          if (out.size() >= limit) {
            return Future.succeededFuture(new FeedPage(List.copyOf(out), true, last));
          }
          return conn.preparedQuery(HIGH).execute(Tuple.of(tenantId)).map(h -> {
            Long high = h.size() == 0 ? null : h.iterator().next().getLong(0);
            return new FeedPage(List.copyOf(out), false, Math.max(last, high == null ? 0 : high));
          });
        })).recover(e -> failed("reading a feed page", e)));
  }

  // -------------------------------------------------------------------------------------- sweep

  /**
   * Dedicated database: this tenant's rows. Shared pool: the whole pool's rows, when this pod wins
   * the pool's claim for the interval; otherwise nothing (batches 0). Reached only from the write
   * path of an active tenant (RetentionSweep), never from a timer.
   */
  @Override
  public Future<SweepResult> sweep(long cutoffMs, int batch, int maxBatches) {
    Future<SweepResult> f;
    if (!placement.shared()) {
      f = SweepLoop.run(() -> sweepBatch(SWEEP_TENANT_REMOVED, SWEEP_TENANT_FEED,
          Tuple.of(tenantId, cutoffMs, batch)), batch, maxBatches, this::bounds, tenantId);
    } else {
      f = placement.claims().tryClaim(placement.sweepJob()).compose(won -> won
          ? SweepLoop.run(() -> sweepBatch(SWEEP_POOL_REMOVED, SWEEP_POOL_FEED, Tuple.of(cutoffMs, batch)), batch,
              maxBatches, this::bounds, placement.sweepScope())
          : bounds().map(b -> new SweepResult(0, 0, b, placement.sweepScope())));
    }
    return CallerContext.deliver(f);
  }

  /** One batch, each DELETE its own autocommit statement: the kept JSON first, then the feed rows. */
  private Future<Integer> sweepBatch(String removedSql, String feedSql, Tuple params) {
    Future<Integer> f = pool.preparedQuery(removedSql).execute(params)
        .compose(v -> pool.preparedQuery(feedSql).execute(params))
        .map(rs -> rs.rowCount());
    return bounded(f, "a feed retention batch");
  }

  @Override
  public boolean isClosed() {
    return false; // a pool is not idle-closed under a store; the wiring hands out a new store with a new pool
  }

  // ------------------------------------------------------------------------------------- helpers

  private <T> Future<T> bounded(Future<T> f, String what) {
    return f.timeout(timeoutMs, TimeUnit.MILLISECONDS).recover(e -> failed(what, e));
  }

  private <T> Future<T> failed(String what, Throwable e) {
    if (e instanceof StoreException) {
      return Future.failedFuture(e);
    }
    String why = e instanceof java.util.concurrent.TimeoutException ? "not done within " + timeoutMs + " ms"
        : BatchErrors.describe(e);
    return Future.failedFuture(new StoreException(what + " for tenant " + tenantId + " failed: " + why, e));
  }
}
