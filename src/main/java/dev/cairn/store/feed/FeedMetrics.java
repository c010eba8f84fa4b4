package dev.cairn.store.feed;

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
  private final Map<String, AtomicLong> gauges = new ConcurrentHashMap<>();
  private final AtomicLong bufferDepth = new AtomicLong();
  private final DistributionSummary residency;

  public FeedMetrics(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("cairn_feed_retry_buffer_depth", bufferDepth, AtomicLong::get)
        .description("Feed changes held by the retry buffer (in flight included)").register(registry);
    residency = DistributionSummary.builder("cairn_feed_buffer_residency_seconds")
        .description("Time a buffered feed change waited until its flush landed (loss-budget input)")
        .publishPercentiles(0.5, 0.99).register(registry);
  }

  /** {@code result}: ok | error; counted per change. */
  public void insert(String result, int changes) {
    Counter.builder("cairn_feed_insert_total").tag("result", result).register(registry).increment(changes);
  }

  public void drop(String tenant, String reason, int count) {
    Counter.builder("cairn_feed_buffer_drop_total").tag("tenant", tenant).tag("reason", reason)
        .register(registry).increment(count);
  }

  /** {@code result}: ok | error; one per flush transaction. */
  public void flush(String result) {
    Counter.builder("cairn_feed_retry_flush_total").tag("result", result).register(registry).increment();
  }

  public void residencySeconds(double seconds) {
    residency.record(seconds);
  }

  public void bufferDepth(long depth) {
    bufferDepth.set(depth);
  }

  public AtomicLong rows(String tenant) {
    return gauge("cairn_feed_rows", tenant);
  }

  public AtomicLong sseConnections(String tenant) {
    return gauge("cairn_sse_connections", tenant);
  }

  public void resetSent(String reason) {
    Counter.builder("cairn_sse_reset_sent_total").tag("reason", reason).register(registry).increment();
  }

  /** Every feed read database-engine runs for SSE sessions (open bounds and pages), per tenant. */
  public void pageQuery(String tenant) {
    Counter.builder("cairn_feed_page_queries_total").tag("tenant", tenant).register(registry).increment();
  }

  public void swept(String tenant, long rows) {
    Counter.builder("cairn_feed_swept_rows_total").tag("tenant", tenant).register(registry).increment(rows);
  }

  private AtomicLong gauge(String name, String tenant) {
    return gauges.computeIfAbsent(name + "|" + tenant, k -> {
      AtomicLong v = new AtomicLong();
      Gauge.builder(name, v, AtomicLong::get).tag("tenant", tenant).register(registry);
      return v;
    });
  }
}
