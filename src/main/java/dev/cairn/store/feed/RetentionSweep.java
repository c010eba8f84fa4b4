package dev.cairn.store.feed;

import io.vertx.core.Future;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The lazy retention sweep (seed 003, item 2): started on the write path after a successful feed
 * insert, at most once per {@code sweepInterval} per tenant, never by a timer. The store runs it
 * ({@link FeedStore#sweep}) as a chain of batched deletes ({@code sweepBatch} rows each, at most
 * {@code sweepMaxBatches} per sweep; leftovers wait for the next sweep), off the write's latency, other
 * writes interleaving between batches. A tenant with no writes is never swept: it keeps its last rows
 * (over-retention is correct). A shared MySQL pool is swept pool-wide, only from here (an active
 * tenant), under its own cluster-wide throttle. Event loop only.
 */
public final class RetentionSweep {
  private static final Logger LOG = Logger.getLogger(RetentionSweep.class.getName());

  private final FeedSettings settings;
  private final LongSupplier clock;
  private final Map<String, Long> lastSweep = new HashMap<>();

  public RetentionSweep(FeedSettings settings, LongSupplier clock) {
    this.settings = settings;
    this.clock = clock;
  }

  /** Starts a sweep when the tenant's last one is older than the interval; null otherwise. */
  public Future<SweepResult> maybeSweep(String tenant, FeedStore store) {
    long now = clock.getAsLong();
    Long last = lastSweep.get(tenant);
    if (last != null && now - last < settings.sweepInterval().toMillis()) {
      return null;
    }
    lastSweep.put(tenant, now);
    long cutoff = now - settings.retention().toMillis();
    return store.sweep(cutoff, settings.sweepBatch(), settings.sweepMaxBatches())
        .onFailure(t -> LOG.log(Level.WARNING, "feed retention sweep failed for tenant " + tenant, t));
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
