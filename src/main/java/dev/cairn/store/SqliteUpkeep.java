package dev.cairn.store;

import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The SQLite stores' background upkeep after writes, off the writer's thread: WAL checkpoints (one per
 * tenant at a time, shortly after writes, on the maintenance thread), the WAL file cut back once a tenant
 * is quiet (same thread), and seed 000's {@code search} handler (the NIP-50 index follows the outbox rows
 * on the search thread). Both threads run at the background priority ({@link ThreadPriority}): they may
 * trail the writer. Used on the engine's event loop only.
 */
final class SqliteUpkeep {
  private static final Logger LOG = Logger.getLogger(SqliteUpkeep.class.getName());
  /** Writes within this delay share one checkpoint. */
  private static final long CHECKPOINT_DELAY_MS = 250;
  private static final int WAL_BACKLOG_WARN_FRAMES = 100_000;
  /**
   * Writes within this delay share one search indexer run: its steps then cover thousands of rows (fewer
   * FTS5 segments to flush and merge: about a quarter less CPU per row than a run per commit), and it
   * does not take turns with every group commit for the cores. The index trails by at most this plus a
   * run. 1 s rather than 0.5 s, with steps of up to 8,000 rows rather than 2,000: at 50 x 20 ingest the
   * indexer's CPU per event ~15% lower (docs/benchmarks.md, 6 December 05:00 UTC).
   */
  private static final long SEARCH_DELAY_MS = 1000;
  /** Outbox rows the search indexer applies per transaction, and transactions per run before others' turn. */
  private static final int SEARCH_STEP_ROWS = 8_000;
  private static final int SEARCH_STEPS_PER_RUN = 12; // ~100k rows a run, as 50 steps of 2,000 were

  /**
   * A tenant without a write for this long has its WAL file cut back to nothing ({@link
   * WalCheckpoints#cutBack}): long enough that a tenant between two bursts keeps it (growing it again costs
   * the writer), short enough that a burst's hundreds of MB go back to the volume soon after.
   */
  static final long QUIET_MS = 10_000;

  private final Vertx vertx;
  private final WorkerExecutor maintenance;
  private final WorkerExecutor searchPool;
  private final ThreadPriority priority;
  private final Map<String, Boolean> checkpointing = new HashMap<>();
  /** Tenants the search indexer is on (true: run again after this run). */
  private final Map<String, Boolean> searching = new HashMap<>();
  /** Stores written since their WAL was last found small or cut back: the time of their last write ({@link #nowMs}). */
  private final Map<SqliteTenantStore, Long> lastWrite = new HashMap<>();
  private final long quietMs;

  SqliteUpkeep(Vertx vertx, String name, ThreadPriority priority) {
    this(vertx, name, priority, QUIET_MS);
  }

  /** Tests: another quiet time than {@link #QUIET_MS}. */
  SqliteUpkeep(Vertx vertx, String name, ThreadPriority priority, long quietMs) {
    this.vertx = vertx;
    this.priority = priority;
    this.quietMs = quietMs;
    this.maintenance = vertx.createSharedWorkerExecutor("cairn-db-checkpoint-" + name, 1);
    this.searchPool = vertx.createSharedWorkerExecutor("cairn-search-" + name, 1);
  }

  /** After a commit that changed {@code store}'s events. */
  void afterWrite(SqliteTenantStore store) {
    searchSoon(store);
    checkpointSoon(store);
    if (lastWrite.put(store, nowMs()) == null) {
      vertx.setTimer(quietMs, id -> whenQuiet(store));
    }
  }

  /** Once the tenant has had no write for {@link #quietMs}, cuts its WAL file back (again later if something was in the way). */
  private void whenQuiet(SqliteTenantStore store) {
    long last = lastWrite.get(store);
    long quietFor = nowMs() - last;
    if (quietFor < quietMs) {
      vertx.setTimer(quietMs - quietFor, id -> whenQuiet(store));
      return;
    }
    if (store.isClosed()) {
      lastWrite.remove(store);
      return;
    }
    String tenant = store.tenant();
    maintenance.executeBlocking(() -> {
      priority.background();
      return store.cutBackWal();
    }, false).onComplete(ar -> {
      boolean writtenSince = lastWrite.get(store).longValue() != last;
      if (ar.failed()) {
        LOG.log(Level.WARNING, "cutting back the WAL file failed for tenant " + tenant, ar.cause());
      } else if (ar.result().outcome() == WalCheckpoints.Outcome.DONE) {
        LOG.info("tenant " + tenant + ": WAL file cut back from " + (ar.result().bytesBefore() >> 20)
            + " MiB to nothing after " + quietMs + " ms without writes");
      }
      if (writtenSince || (ar.succeeded() && ar.result().outcome() == WalCheckpoints.Outcome.BLOCKED)) {
        vertx.setTimer(quietMs, id -> whenQuiet(store));
      } else {
        lastWrite.remove(store);
      }
    });
  }

  /** Milliseconds on the monotonic clock: a wall-clock step must not cut a WAL early or late. */
  private static long nowMs() {
    return System.nanoTime() / 1_000_000;
  }

  void checkpointSoon(SqliteTenantStore store) {
    String tenant = store.tenant();
    if (checkpointing.putIfAbsent(tenant, Boolean.TRUE) != null) {
      return;
    }
    vertx.setTimer(CHECKPOINT_DELAY_MS, id -> maintenance.executeBlocking(() -> {
      priority.background();
      return store.checkpoint();
    }, false)
        .onComplete(ar -> {
          checkpointing.remove(tenant);
          if (ar.failed()) {
            LOG.log(Level.WARNING, "WAL checkpoint failed for tenant " + tenant, ar.cause());
          } else if (ar.result() > WAL_BACKLOG_WARN_FRAMES) {
            LOG.warning("tenant " + tenant + ": " + ar.result() + " WAL frames not yet checkpointed"
                + " (long-running readers?)");
          }
        }));
  }

  /** Runs the search indexer for {@code store} (again after the current run if one is going). */
  void searchSoon(SqliteTenantStore store) {
    String tenant = store.tenant();
    Boolean running = searching.get(tenant);
    if (running != null) {
      searching.put(tenant, Boolean.TRUE);
      return;
    }
    searching.put(tenant, Boolean.FALSE);
    vertx.setTimer(SEARCH_DELAY_MS, id -> indexNow(store));
  }

  private void indexNow(SqliteTenantStore store) {
    String tenant = store.tenant();
    if (store.isClosed()) { // closed while the run waited (tenant removed, shutdown)
      searching.remove(tenant);
      return;
    }
    searchPool.executeBlocking(() -> {
      priority.background();
      int steps = 0;
      while (store.indexSearch(SEARCH_STEP_ROWS) && ++steps < SEARCH_STEPS_PER_RUN) {
        // keep going: caught up, or yield to other tenants after a while
      }
      return steps;
    }, false).onComplete(ar -> {
      Boolean again = searching.remove(tenant);
      if (ar.failed()) {
        LOG.log(Level.WARNING, "search indexing failed for tenant " + tenant, ar.cause());
      } else if (Boolean.TRUE.equals(again) || ar.result() >= SEARCH_STEPS_PER_RUN) {
        searchSoon(store);
      }
    });
  }

  io.vertx.core.Future<Void> close() {
    return maintenance.close().eventually(searchPool::close);
  }
}
