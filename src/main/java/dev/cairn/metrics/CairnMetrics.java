package dev.cairn.metrics;

import dev.cairn.tree.ChannelMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The project's own meters, named as CONTRACT section 6 says (names are the interface). One
 * instance per server, shared by the nodes: meters are thread-safe, and gauges read atomics.
 */
public final class CairnMetrics implements ChannelMetrics {
  private final MeterRegistry registry;
  private final Timer sigVerify;
  private final Map<String, AtomicLong> gauges = new ConcurrentHashMap<>();
  /** Meter lookups by name and tags cost more than the increment: resolve each once. */
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();

  public CairnMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.sigVerify = Timer.builder("cairn_sig_verify_seconds")
        .description("Time to hash and BIP-340 verify one event in a sig-worker")
        .publishPercentiles(0.5, 0.99)
        .register(registry);
  }

  public MeterRegistry registry() {
    return registry;
  }

  public Timer sigVerify() {
    return sigVerify;
  }

  /** {@code result}: accepted, duplicate, invalid, blocked, rate-limited, restricted, auth-required, pow, error. */
  public void eventReceived(String tenant, String result) {
    counters.computeIfAbsent("received|" + tenant + "|" + result, k -> Counter.builder("cairn_events_received_total")
        .tag("tenant", tenant).tag("result", result).register(registry)).increment();
  }

  public void eventStored(String tenant) {
    counters.computeIfAbsent("stored|" + tenant, k -> Counter.builder("cairn_events_stored_total")
        .tag("tenant", tenant).register(registry)).increment();
  }

  public AtomicLong connections(String tenant) {
    return gauge("cairn_connections", tenant);
  }

  public AtomicLong subscriptions(String tenant) {
    return gauge("cairn_subscriptions", tenant);
  }

  @Override
  public void channelFull(String channel) {
    counters.computeIfAbsent("full|" + channel, k -> Counter.builder("cairn_channel_full_total")
        .tag("channel", channel).register(registry)).increment();
  }

  private AtomicLong gauge(String name, String tenant) {
    return gauges.computeIfAbsent(name + "|" + tenant, k -> {
      AtomicLong v = new AtomicLong();
      io.micrometer.core.instrument.Gauge.builder(name, v, AtomicLong::get).tag("tenant", tenant).register(registry);
      return v;
    });
  }
}
