package dev.cairn.store.signal;

import dev.cairn.config.RepeatedFailureLog;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The writer side of the signal plane (seed 003 "Architecture", item 3's second wake): one
 * {@code tenant_notify_outbox} row tells every pod's {@link NotifyPoller} "tenant T changed".
 *
 * <p>{@link #notify(String)} is called after each feed insert and after each retry-buffer flush, from
 * any thread. Coalescing: flushes are spaced at least {@code notifyCoalesce} apart and each inserts one
 * row per pending tenant (one {@code executeBatch}), so a tenant gets at most one row per window however
 * often it is written. The first notify after a quiet spell flushes at once (next event-loop turn), so
 * the common case pays no window latency.
 *
 * <p>Failures never reach the caller (the meta DB is not on a write's commit path): they are counted
 * ({@code cairn_signal_errors_total{op="notify"}}), logged, and the tenants are retried in the next
 * window (the pending set is bounded by the number of tenants).
 */
public final class NotifyOutbox {
  /** The {@code work} column: what to wake. */
  public static final String WORK_FEED = "feed";
  private static final Logger LOG = Logger.getLogger(NotifyOutbox.class.getName());
  /** Repeats of a failing insert are summed up at most this often. */
  private static final long FAILURE_LOG_INTERVAL_MS = 10_000;
  private static final String INSERT =
      "INSERT INTO tenant_notify_outbox (tenant_id, work, created_at) VALUES (?, ?, ?)";

  private final Vertx vertx;
  private final Context ctx;
  private final Pool pool;
  private final long windowNanos;
  private final SignalMetrics metrics;
  private final Set<String> pending = ConcurrentHashMap.newKeySet();
  /** A meta DB that is down fails every window (a line each, 5 a second, before). */
  private final RepeatedFailureLog insertFailures =
      new RepeatedFailureLog(LOG, Level.WARNING, "notify outbox", FAILURE_LOG_INTERVAL_MS);
  /** A flush is scheduled or running; only one at a time, so windows never overlap. */
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private volatile boolean closed;
  // Below: touched on ctx only.
  private long lastFlushNanos;
  private boolean flushedOnce;
  private long timer = -1;
  private Promise<Void> drained;

  public NotifyOutbox(Vertx vertx, Pool metaPool, SignalSettings settings, SignalMetrics metrics) {
    this.vertx = vertx;
    this.ctx = vertx.getOrCreateContext();
    this.pool = metaPool;
    this.windowNanos = settings.notifyCoalesce().toNanos();
    this.metrics = metrics;
  }

  /** Tenant {@code tenant} changed: a row for it reaches the meta DB within one coalescing window. */
  public void notify(String tenant) {
    if (closed) {
      return;
    }
    pending.add(tenant);
    if (scheduled.compareAndSet(false, true)) {
      // Through the context even when already on it: notifies of the same turn share one batch.
      ctx.runOnContext(v -> schedule());
    }
  }

  /** Tenants waiting for the next flush (tests, ops). */
  public int pending() {
    return pending.size();
  }

  private void schedule() {
    long wait = flushedOnce ? lastFlushNanos + windowNanos - System.nanoTime() : 0;
    if (wait <= 0 || closed) {
      flush();
    } else {
      timer = vertx.setTimer(Math.max(1, wait / 1_000_000), id -> {
        timer = -1;
        flush();
      });
    }
  }

  private void flush() {
    lastFlushNanos = System.nanoTime();
    flushedOnce = true;
    List<String> tenants = new ArrayList<>(pending);
    pending.removeAll(tenants); // a notify racing this keeps its tenant pending for the next window
    if (tenants.isEmpty()) {
      done();
      return;
    }
    long now = System.currentTimeMillis();
    List<Tuple> rows = new ArrayList<>(tenants.size());
    for (String t : tenants) {
      rows.add(Tuple.of(t, WORK_FEED, now));
    }
    pool.preparedQuery(INSERT).executeBatch(rows).onComplete(ar -> {
      if (ar.succeeded()) {
        metrics.notifyRows(rows.size());
        insertFailures.succeeded(System.currentTimeMillis());
      } else {
        metrics.error("notify");
        insertFailures.failed("the insert of " + tenants.size() + " tenant(s), retried next window: " + ar.cause(),
            null, System.currentTimeMillis());
        if (!closed) {
          pending.addAll(tenants); // a duplicate row (part of the batch landed) is harmless: wakes are idempotent
        }
      }
      done();
    });
  }

  private void done() {
    scheduled.set(false);
    if (!pending.isEmpty() && !closed && scheduled.compareAndSet(false, true)) {
      schedule();
    } else if (closed && !scheduled.get() && drained != null) {
      drained.tryComplete();
    }
  }

  /**
   * Stops taking notifies and writes what is pending now (one last batch, no window wait).
   * Completes when that batch landed or failed; never fails.
   */
  public Future<Void> close() {
    Promise<Void> p = Promise.promise();
    ctx.runOnContext(v -> {
      closed = true;
      drained = p;
      if (timer >= 0) {
        vertx.cancelTimer(timer);
        timer = -1;
        flush(); // the cancelled window's flush, now
      } else if (scheduled.compareAndSet(false, true)) {
        flush();
      }
      // else a flush is running or queued on ctx; done() completes p after it
    });
    return p.future();
  }
}
