package dev.cairn.store.signal;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One per pod: every {@code pollInterval} reads the rows of {@code tenant_notify_outbox} past its
 * position (the meta DB only: cold tenant DBs are never queried, seed 003 "Key insight") and hands
 * the tenants to wake to {@code wake} (the wiring sends {@code FeedWake} to the local SSE sessions;
 * this pod's own rows wake too, which is harmless). Out-of-order ids: see {@link SettleWindow}.
 *
 * <p>Its position is upserted into {@code tenant_outbox_cursor} every {@code cursorWriteInterval}; the
 * row's {@code updated_at} is what keeps it in the prune floor ({@link NotifyPruner}). A poller that
 * did not write its cursor for half of {@code stallBound} (paused, stuck, meta DB unreachable) may
 * have been ignored by the floor and pruned past, so its next successful tick also wakes every tenant
 * of {@code localTenants}: their SSE sessions catch up from their tenant DBs. Half, not the whole bound:
 * the pruner compares with its own clock, and a spurious wake-all only costs one read per session of
 * tenants that have a connected client anyway.
 *
 * <p>All state lives on the context that created it; {@link #pause}/{@link #resume} may be called from
 * any thread. {@code wake} and {@code localTenants} run on that context and must not block.
 */
public final class NotifyPoller {
  private static final Logger LOG = Logger.getLogger(NotifyPoller.class.getName());
  private static final String MAX_ID = "SELECT COALESCE(MAX(id), 0) FROM tenant_notify_outbox";
  private static final String NEXT_PAGE =
      "SELECT id, tenant_id FROM tenant_notify_outbox WHERE id > ? ORDER BY id LIMIT ?";
  private static final String RANGE =
      "SELECT id, tenant_id FROM tenant_notify_outbox WHERE id > ? AND id <= ? ORDER BY id LIMIT ?";
  static final String UPSERT_CURSOR = "INSERT INTO tenant_outbox_cursor (pod_id, last_id, updated_at) VALUES (?, ?, ?)"
      + " ON DUPLICATE KEY UPDATE last_id = VALUES(last_id), updated_at = VALUES(updated_at)";

  private final Vertx vertx;
  private final Context ctx;
  private final Pool pool;
  private final SignalSettings settings;
  private final SignalMetrics metrics;
  private final Consumer<Set<String>> wake;
  private final Supplier<Set<String>> localTenants;
  private final Promise<Void> started = Promise.promise();
  private volatile boolean paused;
  // Below: ctx only.
  private SettleWindow window;
  private long timer = -1;
  private boolean busy;
  private Future<Void> inFlight = Future.succeededFuture();
  private boolean stopped;
  private long lastCursorWriteMillis;
  private long lastCursorOkMillis;
  /** When a tick last read the meta DB, and the last failure's text (readiness reads both from any thread). */
  private volatile long lastPollOkMillis = System.currentTimeMillis();
  private volatile String lastPollError;
  private long lastErrorLoggedMillis;
  private long wakeAlls;

  public NotifyPoller(Vertx vertx, Pool metaPool, SignalSettings settings, SignalMetrics metrics,
      Consumer<Set<String>> wake, Supplier<Set<String>> localTenants) {
    this.vertx = vertx;
    this.ctx = vertx.getOrCreateContext();
    this.pool = metaPool;
    this.settings = settings;
    this.metrics = metrics;
    this.wake = wake;
    this.localTenants = localTenants;
  }

  /**
   * Starts ticking. The position starts at the newest row: a new process has no SSE session that
   * could have missed an older one. Completes once that position is read and the cursor row written
   * (retried every tick while the meta DB is unreachable).
   */
  public Future<Void> start() {
    ctx.runOnContext(v -> {
      if (timer < 0 && !stopped) {
        timer = vertx.setPeriodic(1, settings.pollInterval().toMillis(), id -> tick());
      }
    });
    return started.future();
  }

  /**
   * Stops ticking; completes once a tick in flight finished (the pool can then be closed). The cursor
   * row stays until {@link PodRegistry#stop}.
   */
  public Future<Void> stop() {
    Promise<Void> p = Promise.promise();
    ctx.runOnContext(v -> {
      stopped = true;
      if (timer >= 0) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
      inFlight.onComplete(ar -> p.complete());
    });
    return p.future();
  }

  /** A stalled pod on purpose (ops, tests): ticks do nothing, the cursor row goes stale. */
  public void pause() {
    paused = true;
  }

  public void resume() {
    paused = false;
  }

  public boolean paused() {
    return paused;
  }

  /** The position as persisted (the settled floor); -1 before the start. Call on any thread (a snapshot). */
  public Future<Long> position() {
    Promise<Long> p = Promise.promise();
    ctx.runOnContext(v -> p.complete(window == null ? -1L : window.floor()));
    return p.future();
  }

  /** How many times a stale cursor made this poller wake every local tenant. */
  public Future<Long> wakeAlls() {
    Promise<Long> p = Promise.promise();
    ctx.runOnContext(v -> p.complete(wakeAlls));
    return p.future();
  }

  private void tick() {
    if (paused || busy || stopped) {
      return;
    }
    busy = true;
    Future<Void> f = window == null ? init() : poll();
    inFlight = f;
    f.onComplete(ar -> {
      busy = false;
      long now = System.currentTimeMillis();
      if (ar.succeeded()) {
        lastPollOkMillis = now;
        lastPollError = null;
        return;
      }
      metrics.error("poll");
      lastPollError = String.valueOf(ar.cause().getMessage());
      if (now - lastErrorLoggedMillis >= 30_000) { // a down meta DB fails every tick: log it twice a minute
        lastErrorLoggedMillis = now;
        LOG.log(Level.WARNING, "notify poller of pod " + settings.podId() + ": " + ar.cause());
      }
    });
  }

  /**
   * Null while the meta DB answered a poll within {@code boundMillis}, else why not: readiness from the
   * poller's own traffic, no extra query.
   */
  public String problem(long boundMillis) {
    if (paused || System.currentTimeMillis() - lastPollOkMillis < boundMillis) {
      return null;
    }
    return "meta DB not answering the notify poller for " + (System.currentTimeMillis() - lastPollOkMillis) / 1000
        + " s" + (lastPollError == null ? "" : ": " + lastPollError);
  }

  private Future<Void> init() {
    return pool.query(MAX_ID).execute().compose(rows -> {
      long max = rows.iterator().next().getLong(0);
      return writeCursor(max).map(v -> {
        window = new SettleWindow(max);
        started.tryComplete();
        return null;
      });
    });
  }

  private Future<Void> poll() {
    Set<String> tenants = new HashSet<>();
    boolean stale = System.currentTimeMillis() - lastCursorOkMillis >= settings.stallBound().toMillis() / 2;
    Future<Void> recheck = window.hasGaps()
        ? pool.preparedQuery(RANGE)
            .execute(Tuple.of(window.floor(), window.high(), window.size() + settings.pollPageSize()))
            .map(rows -> {
              offer(rows, tenants);
              return null;
            })
        : Future.succeededFuture();
    return recheck.compose(v -> readNew(tenants, 1)).compose(v -> {
      window.settle(System.nanoTime(), settings.settle().toNanos());
      if (stale) {
        wakeAlls++;
        tenants.addAll(localTenants.get());
      }
      deliver(tenants);
      long now = System.currentTimeMillis();
      if (stale || now - lastCursorWriteMillis >= settings.cursorWriteInterval().toMillis()) {
        return writeCursor(window.floor());
      }
      return Future.succeededFuture();
    });
  }

  /** New rows above the highest id read, page after page while pages come back full (bounded per tick). */
  private Future<Void> readNew(Set<String> tenants, int page) {
    return pool.preparedQuery(NEXT_PAGE).execute(Tuple.of(window.high(), settings.pollPageSize())).compose(rows -> {
      offer(rows, tenants);
      if (rows.size() == settings.pollPageSize() && page < settings.pollMaxPages()) {
        return readNew(tenants, page + 1);
      }
      return Future.succeededFuture();
    });
  }

  private void offer(RowSet<Row> rows, Set<String> tenants) {
    long now = System.nanoTime();
    for (Row r : rows) {
      if (window.offer(r.getLong(0), now)) {
        tenants.add(r.getString(1));
      }
    }
  }

  private void deliver(Set<String> tenants) {
    if (tenants.isEmpty()) {
      return;
    }
    try {
      wake.accept(Set.copyOf(tenants));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "notify poller wake callback failed", e);
    }
  }

  private Future<Void> writeCursor(long lastId) {
    long now = System.currentTimeMillis();
    lastCursorWriteMillis = now;
    return pool.preparedQuery(UPSERT_CURSOR).execute(Tuple.of(settings.podId(), lastId, now)).<Void>map(r -> {
      lastCursorOkMillis = now;
      return null;
    }).recover(e -> {
      if (window == null) {
        return Future.failedFuture(e); // start: counted and retried by the tick
      }
      // Counted, not fatal: the next interval tries again; a long failure makes this poller stale.
      metrics.error("cursor");
      LOG.log(Level.WARNING, "notify poller of pod " + settings.podId() + ": cursor upsert failed: " + e);
      return Future.succeededFuture();
    });
  }
}
