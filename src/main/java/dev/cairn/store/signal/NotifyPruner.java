package dev.cairn.store.signal;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps {@code tenant_notify_outbox} short (seed 003 section 6): every {@code pruneInterval} deletes
 * the rows older than {@code notifyRetention} that every live poller has read, in
 * {@code DELETE ... LIMIT pruneBatch} statements (at most {@code pruneMaxBatches} a run; the rest
 * waits for the next run), then sets {@code cairn_notify_outbox_oldest_age_seconds}.
 *
 * <p>The prune floor is {@code MIN(last_id)} over the cursors written within {@code stallBound}: a dead
 * pod's cursor is deleted by {@link PodRegistry}, and an alive-but-stalled pod's cursor is ignored once
 * stale, so neither pins the table. Pruning past a stalled pod is safe: rows are hints, and that
 * pod's poller wakes all its local tenants when it comes back ({@link NotifyPoller}). With no fresh
 * cursor at all, retention alone decides (no poller is waiting for anything).
 *
 * <p>One pod pruning is enough; several are harmless (the same idempotent deletes).
 */
public final class NotifyPruner {
  private static final Logger LOG = Logger.getLogger(NotifyPruner.class.getName());
  private static final String FLOOR = "SELECT MIN(last_id) FROM tenant_outbox_cursor WHERE updated_at >= ?";
  private static final String DELETE = "DELETE FROM tenant_notify_outbox WHERE created_at < ? AND id <= ? LIMIT ?";
  private static final String OLDEST = "SELECT MIN(created_at) FROM tenant_notify_outbox";

  private final Vertx vertx;
  private final Context ctx;
  private final Pool pool;
  private final SignalSettings settings;
  private final SignalMetrics metrics;
  // Below: ctx only.
  private long timer = -1;
  private boolean busy;

  public NotifyPruner(Vertx vertx, Pool metaPool, SignalSettings settings, SignalMetrics metrics) {
    this.vertx = vertx;
    this.ctx = vertx.getOrCreateContext();
    this.pool = metaPool;
    this.settings = settings;
    this.metrics = metrics;
  }

  /** Runs every {@code pruneInterval}, the first run now. */
  public void start() {
    ctx.runOnContext(v -> {
      if (timer < 0) {
        timer = vertx.setPeriodic(1, settings.pruneInterval().toMillis(), id -> prune());
      }
    });
  }

  public Future<Void> stop() {
    Promise<Void> p = Promise.promise();
    ctx.runOnContext(v -> {
      if (timer >= 0) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
      p.complete();
    });
    return p.future();
  }

  /** One run now (tests, ops): the rows deleted, 0 when a run is already going or it failed (counted). */
  public Future<Long> prune() {
    Promise<Long> p = Promise.promise();
    ctx.runOnContext(v -> {
      if (busy) {
        p.complete(0L);
        return;
      }
      busy = true;
      long now = System.currentTimeMillis();
      pool.preparedQuery(FLOOR).execute(Tuple.of(now - settings.stallBound().toMillis()))
          .compose(rows -> {
            Long floor = rows.iterator().next().getLong(0);
            return deleteBatches(now - settings.notifyRetention().toMillis(), floor == null ? Long.MAX_VALUE : floor, 0, 0);
          })
          .compose(deleted -> pool.query(OLDEST).execute().map(rows -> {
            Row r = rows.iterator().next();
            Long oldest = r.getLong(0);
            metrics.oldestAgeSeconds(oldest == null ? 0 : Math.max(0, (System.currentTimeMillis() - oldest) / 1000));
            return deleted;
          }))
          .onComplete(ar -> {
            busy = false;
            if (ar.succeeded()) {
              p.complete(ar.result());
            } else {
              metrics.error("prune");
              LOG.log(Level.WARNING, "notify outbox prune failed: " + ar.cause());
              p.complete(0L);
            }
          });
    });
    return p.future();
  }

  private Future<Long> deleteBatches(long before, long floor, int batch, long deleted) {
    return pool.preparedQuery(DELETE).execute(Tuple.of(before, floor, settings.pruneBatch())).compose(r -> {
      long total = deleted + r.rowCount();
      if (r.rowCount() == settings.pruneBatch() && batch + 1 < settings.pruneMaxBatches()) {
        return deleteBatches(before, floor, batch + 1, total);
      }
      return Future.succeededFuture(total);
    });
  }
}
