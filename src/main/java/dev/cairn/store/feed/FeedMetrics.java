package dev.cairn.store.feed;

import dev.cairn.metrics.Meters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The change feed's meters (CONTRACT section 6), on the server's registry. One instance per server,
 * shared by database-engine and delivery; thread-safe.
 */
public final class FeedMetrics {
  private final MeterRegistry registry;
  private final Meters meters;
  private final AtomicLong bufferDepth = new AtomicLong();
  private final DistributionSummary residency;

  public FeedMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.meters = new Meters(registry);
    Gauge.builder("cairn_feed_retry_buffer_depth", bufferDepth, AtomicLong::get)
        .description("Feed changes held by the retry buffer (in flight included)").register(registry);
    residency = DistributionSummary.builder("cairn_feed_buffer_residency_seconds")
        .description("Time a buffered feed change waited until its flush landed (loss-budget input)")
        .publishPercentiles(0.5, 0.99).register(registry);
  }

  /** {@code result}: ok | error; counted per change. */
  public void insert(String result, int changes) {
    meters.counter("cairn_feed_insert_total", "result", result).increment(changes);
  }

  public void drop(String tenant, String reason, int count) {
    meters.counter("cairn_feed_buffer_drop_total", "tenant", tenant, "reason", reason).increment(count);
  }

  /** {@code result}: ok | error; one per flush transaction. */
  public void flush(String result) {
    meters.counter("cairn_feed_retry_flush_total", "result", result).increment();
  }

  public void residencySeconds(double seconds) {
    residency.record(seconds);
  }

  public void bufferDepth(long depth) {
    bufferDepth.set(depth);
  }

  public AtomicLong rows(String tenant) {
    return meters.tenantGauge("cairn_feed_rows", tenant);
  }

  public AtomicLong sseConnections(String tenant) {
    return meters.tenantGauge("cairn_sse_connections", tenant);
  }

  public void resetSent(String reason) {
    meters.counter("cairn_sse_reset_sent_total", "reason", reason).increment();
  }

  /** Every feed read database-engine runs for SSE sessions (open bounds and pages), per tenant. */
  public void pageQuery(String tenant) {
    meters.counter("cairn_feed_page_queries_total", "tenant", tenant).increment();
  }

  public void swept(String tenant, long rows) {
    meters.counter("cairn_feed_swept_rows_total", "tenant", tenant).increment(rows);
  }

}
