package dev.cairn.store.signal;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * This pod's row in {@code pods} (seed 003 section 6): a heartbeat every {@code heartbeatInterval},
 * and with each beat a sweep of dead pods (heartbeat older than {@code deadAfter}): their
 * {@code tenant_outbox_cursor} row, so a dead pod does not pin the notify prune floor, then their
 * {@code pods} row. Every pod sweeps; the deletes are idempotent, so racing sweeps are harmless.
 * After each beat the live pods are counted for {@code cairn_pods}.
 *
 * <p>Failures are counted ({@code cairn_signal_errors_total{op="heartbeat"|"sweep"}}) and logged; the
 * next beat tries again. A pod whose heartbeat failed for {@code deadAfter} is swept by the others and
 * simply re-inserts its row (and its poller its cursor) when the meta DB answers again.
 */
public final class PodRegistry {
  private static final Logger LOG = Logger.getLogger(PodRegistry.class.getName());
  private static final String HEARTBEAT = "INSERT INTO pods (pod_id, started_at, heartbeat_at) VALUES (?, ?, ?)"
      + " ON DUPLICATE KEY UPDATE heartbeat_at = VALUES(heartbeat_at)";
  // A cursor goes when its pod is dead or gone, and only if the cursor is as old: a poller that still
  // writes is alive whatever its pods row says (that row comes back with its next heartbeat).
  private static final String DELETE_DEAD_CURSORS = "DELETE c FROM tenant_outbox_cursor c"
      + " LEFT JOIN pods p ON p.pod_id = c.pod_id"
      + " WHERE c.updated_at < ? AND (p.pod_id IS NULL OR p.heartbeat_at < ?) AND c.pod_id <> ?";
  private static final String DELETE_DEAD_PODS = "DELETE FROM pods WHERE heartbeat_at < ? AND pod_id <> ?";
  private static final String COUNT_LIVE = "SELECT COUNT(*) FROM pods WHERE heartbeat_at >= ?";
  private static final String DELETE_OWN_CURSOR = "DELETE FROM tenant_outbox_cursor WHERE pod_id = ?";
  private static final String DELETE_OWN_POD = "DELETE FROM pods WHERE pod_id = ?";

  private final Vertx vertx;
  private final Context ctx;
  private final Pool pool;
  private final SignalSettings settings;
  private final SignalMetrics metrics;
  private final long startedAt = System.currentTimeMillis();
  // Below: ctx only.
  private long timer = -1;
  private boolean busy;
  private boolean stopped;

  public PodRegistry(Vertx vertx, Pool metaPool, SignalSettings settings, SignalMetrics metrics) {
    this.vertx = vertx;
    this.ctx = vertx.getOrCreateContext();
    this.pool = metaPool;
    this.settings = settings;
    this.metrics = metrics;
  }

  /** The first beat (heartbeat, sweep, count), then one every {@code heartbeatInterval}. Never fails. */
  public Future<Void> start() {
    Promise<Void> p = Promise.promise();
    ctx.runOnContext(v -> {
      if (stopped || timer >= 0) {
        p.complete();
        return;
      }
      timer = vertx.setPeriodic(settings.heartbeatInterval().toMillis(), id -> beat());
      beat().onComplete(ar -> p.complete());
    });
    return p.future();
  }

  /** Pods seen alive at the last beat (this one included once its heartbeat landed): {@code cairn_pods}. */
  public long livePods() {
    return metrics.livePods();
  }

  /** One heartbeat + sweep + count now (tests, ops); skipped while one runs. Never fails. */
  public Future<Void> beat() {
    Promise<Void> p = Promise.promise();
    ctx.runOnContext(v -> {
      if (busy || stopped) {
        p.complete();
        return;
      }
      busy = true;
      long now = System.currentTimeMillis();
      long deadBefore = now - settings.deadAfter().toMillis();
      pool.preparedQuery(HEARTBEAT).execute(Tuple.of(settings.podId(), startedAt, now))
          .recover(e -> failed("heartbeat", e))
          .compose(r -> pool.preparedQuery(DELETE_DEAD_CURSORS).execute(Tuple.of(deadBefore, deadBefore, settings.podId()))
              .compose(c -> pool.preparedQuery(DELETE_DEAD_PODS).execute(Tuple.of(deadBefore, settings.podId())))
              .compose(d -> {
                if (d.rowCount() > 0) {
                  LOG.info("pod " + settings.podId() + " swept " + d.rowCount() + " dead pod(s)");
                }
                return Future.succeededFuture();
              })
              .recover(e -> failed("sweep", e)))
          .compose(v2 -> pool.preparedQuery(COUNT_LIVE).execute(Tuple.of(deadBefore)))
          .onSuccess(rows -> metrics.livePods(rows.iterator().next().getLong(0)))
          .onFailure(e -> {
            metrics.error("heartbeat");
            LOG.log(Level.WARNING, "pod " + settings.podId() + ": counting live pods failed: " + e);
          })
          .onComplete(ar -> {
            busy = false;
            p.complete();
          });
    });
    return p.future();
  }

  private <T> Future<T> failed(String op, Throwable e) {
    metrics.error(op);
    LOG.log(Level.WARNING, "pod " + settings.podId() + ": " + op + " failed: " + e);
    return Future.succeededFuture();
  }

  /**
   * Graceful stop: no more beats; this pod's cursor and pods rows are deleted (stop the
   * {@link NotifyPoller} first, or it writes its cursor back). Never fails.
   */
  public Future<Void> stop() {
    Promise<Void> p = Promise.promise();
    ctx.runOnContext(v -> {
      stopped = true;
      if (timer >= 0) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
      pool.preparedQuery(DELETE_OWN_CURSOR).execute(Tuple.of(settings.podId()))
          .compose(r -> pool.preparedQuery(DELETE_OWN_POD).execute(Tuple.of(settings.podId())))
          .onFailure(e -> failed("heartbeat", e))
          .onComplete(ar -> p.complete());
    });
    return p.future();
  }
}
