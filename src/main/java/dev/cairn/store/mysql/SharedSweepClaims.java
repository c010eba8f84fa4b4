package dev.cairn.store.mysql;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * One pod's claims of shared-pool maintenance runs (seed 003, "Shared-table storage policy"): a job on
 * a physical pool runs at most once per {@code interval} across the cluster. The authority is the meta
 * DB's {@code shared_maintenance_state} row of the job ({@code feed_sweep:<db_name>}): a pod runs the job
 * only if ONE conditional statement moves {@code last_run_at} forward past the interval (the row lock
 * makes racing pods see each other's claim), or inserts the missing row. In front of it, a pod-local
 * pre-filter: after a claim this pod knows when the job is next due (its own run, or the winner's
 * {@code last_run_at} read back after a lost claim) and does not ask the meta DB before then, so the
 * write paths of many active tenants cost the meta DB about one claim per pool, pod and interval.
 *
 * <p>One per pod (shared by every tenant's store on every pool); the clock and interval are inputs so
 * tests can move time. Thread-safe.
 */
public final class SharedSweepClaims {
  /** Seed 003: the shared pool's sweep runs at most this often. */
  public static final Duration INTERVAL = Duration.ofMinutes(30);

  // Affected rows are counted the same with or without CLIENT_FOUND_ROWS here: a matching row always
  // changes (last_run_at moves forward), and an ignored INSERT counts 0 either way. (An ON DUPLICATE
  // KEY UPDATE claim would report 1 both for "inserted" and for "found, unchanged" under FOUND_ROWS.)
  private static final String CLAIM = "UPDATE shared_maintenance_state SET last_run_at = ?, claimed_by = ?"
      + " WHERE name = ? AND last_run_at <= ?";
  private static final String FIRST_CLAIM =
      "INSERT IGNORE INTO shared_maintenance_state(name, last_run_at, claimed_by) VALUES (?, ?, ?)";
  private static final String LAST_RUN = "SELECT last_run_at FROM shared_maintenance_state WHERE name = ?";

  private final Pool meta;
  private final String podId;
  private final long intervalMs;
  private final LongSupplier clock;
  private final Map<String, Long> nextTryAt = new HashMap<>();

  public SharedSweepClaims(Pool meta, String podId, Duration interval, LongSupplier clock) {
    this.meta = meta;
    this.podId = podId;
    this.intervalMs = interval.toMillis();
    this.clock = clock;
  }

  /** The production claims: {@link #INTERVAL}, the wall clock. */
  public SharedSweepClaims(Pool meta, String podId) {
    this(meta, podId, INTERVAL, System::currentTimeMillis);
  }

  /** True when this pod won {@code job} for the current interval and must run it now. */
  public Future<Boolean> tryClaim(String job) {
    long now = clock.getAsLong();
    if (!due(job, now)) {
      return Future.succeededFuture(false);
    }
    return meta.preparedQuery(CLAIM).execute(Tuple.of(now, podId, job, now - intervalMs)).compose(updated -> {
      if (updated.rowCount() > 0) {
        return Future.succeededFuture(true);
      }
      // Not due, or no row yet: only an insert of the missing row can still win.
      return meta.preparedQuery(FIRST_CLAIM).execute(Tuple.of(job, now, podId)).compose(inserted -> {
        if (inserted.rowCount() > 0) {
          return Future.succeededFuture(true);
        }
        // Lost: another pod ran it; ask again only when its interval ends.
        return meta.preparedQuery(LAST_RUN).execute(Tuple.of(job)).map(rs -> {
          if (rs.size() > 0) {
            nextTry(job, rs.iterator().next().getLong(0) + intervalMs);
          }
          return false;
        });
      });
    });
  }

  /** The pod-local pre-filter: false before the job's known next due time; else reserves this try. */
  private synchronized boolean due(String job, long now) {
    Long next = nextTryAt.get(job);
    if (next != null && now < next) {
      return false;
    }
    nextTryAt.put(job, now + intervalMs); // this pod's run, or its failed try: not again before then
    return true;
  }

  private synchronized void nextTry(String job, long at) {
    nextTryAt.put(job, at);
  }
}
