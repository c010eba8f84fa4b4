package dev.cairn.store.feed;

import dev.cairn.store.SqliteTenantStore;
import io.vertx.core.Future;
import dev.cairn.store.TenantWriters;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The lazy retention sweep (seed 003, item 2): started on the write path after a successful feed
 * insert, at most once per {@code sweepInterval} per tenant, never by a timer. It runs as a chain of
 * batched deletes ({@code sweepBatch} rows each, at most {@code sweepMaxBatches} per sweep; leftovers
 * wait for the next sweep), each batch its own task on the tenant's writer lane, queued after the insert
 * so it adds nothing to that write's latency and other writes interleave between batches. A tenant
 * with no writes is never swept: it keeps its last rows (over-retention is correct). Event loop only.
 */
public final class RetentionSweep {
  private static final Logger LOG = Logger.getLogger(RetentionSweep.class.getName());

  /** A finished sweep: rows deleted and the bounds after it. */
  public record Result(int deleted, int batches, FeedBounds bounds) {}

  private final FeedSettings settings;
  private final LongSupplier clock;
  private final Map<String, Long> lastSweep = new HashMap<>();

  public RetentionSweep(FeedSettings settings, LongSupplier clock) {
    this.settings = settings;
    this.clock = clock;
  }

  /** Starts a sweep when the tenant's last one is older than the interval; null otherwise. */
  public Future<Result> maybeSweep(String tenant, SqliteTenantStore store, TenantWriters writers) {
    long now = clock.getAsLong();
    Long last = lastSweep.get(tenant);
    if (last != null && now - last < settings.sweepInterval().toMillis()) {
      return null;
    }
    lastSweep.put(tenant, now);
    long cutoff = now - settings.retention().toMillis();
    return step(tenant, store, writers, cutoff, 0, 0)
        .onFailure(t -> LOG.log(Level.WARNING, "feed retention sweep failed for tenant " + tenant, t));
  }

  private Future<Result> step(String tenant, SqliteTenantStore store, TenantWriters writers, long cutoff, int batches,
      int deleted) {
    return writers.execute(tenant, () -> store.withWriter(settings.insertTimeout().toMillis(),
            c -> FeedTable.sweepBatch(c, cutoff, settings.sweepBatch())))
        .compose(n -> {
          int total = deleted + n;
          int done = batches + 1;
          if (n >= settings.sweepBatch() && done < settings.sweepMaxBatches()) {
            return step(tenant, store, writers, cutoff, done, total);
          }
          return writers.execute(tenant, () -> store.withWriter(settings.insertTimeout().toMillis(),
              FeedTable::bounds)).map(b -> new Result(total, done, b));
        });
  }

  /** One whole sweep, blocking (tests and the operator path): returns the rows deleted. */
  public static int sweepNow(dev.cairn.store.Sql c, long cutoffMs, int batch, int maxBatches)
      throws java.sql.SQLException {
    int total = 0;
    for (int i = 0; i < maxBatches; i++) {
      int n = FeedTable.sweepBatch(c, cutoffMs, batch);
      total += n;
      if (n < batch) {
        break;
      }
    }
    return total;
  }
}
