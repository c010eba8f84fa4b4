package dev.cairn.store.signal;

import dev.cairn.metrics.Meters;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The signal plane's meters (CONTRACT sections 6 and 7), on the server's registry. One instance per
 * server; thread-safe (gauges read atomics).
 */
public final class SignalMetrics {
  private final Meters meters;
  private final AtomicLong pods = new AtomicLong();
  private final AtomicLong oldestAgeSeconds = new AtomicLong();

  public SignalMetrics(MeterRegistry registry) {
    this.meters = new Meters(registry);
    Gauge.builder("cairn_pods", pods, AtomicLong::get)
        .description("Pods this pod sees alive (heartbeat within pod dead_after)").register(registry);
    Gauge.builder("cairn_notify_outbox_oldest_age_seconds", oldestAgeSeconds, AtomicLong::get)
        .description("Age of the oldest tenant_notify_outbox row (0 when empty), as of the last prune run")
        .register(registry);
  }

  /** {@code op}: notify | poll | cursor | heartbeat | sweep | prune. The plane is a lossy hint: errors never fail callers. */
  public void error(String op) {
    meters.counter("cairn_signal_errors_total", "op", op).increment();
  }

  /** Notify rows inserted (after coalescing): the write rate the meta DB sees. */
  public void notifyRows(int n) {
    meters.counter("cairn_notify_rows_total").increment(n);
  }

  void livePods(long n) {
    pods.set(n);
  }

  long livePods() {
    return pods.get();
  }

  void oldestAgeSeconds(long s) {
    oldestAgeSeconds.set(s);
  }
}
