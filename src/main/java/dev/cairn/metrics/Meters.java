package dev.cairn.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Resolves each labelled meter once: a registry lookup by name and tags costs more than the
 * increment, and counters here sit on per-event paths. Thread-safe.
 */
public final class Meters {
  private final MeterRegistry registry;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> gauges = new ConcurrentHashMap<>();

  public Meters(MeterRegistry registry) {
    this.registry = registry;
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** The counter {@code name} with the given {@code key, value, key, value...} tags. */
  public Counter counter(String name, String... tags) {
    String key = name + '|' + String.join("|", tags);
    Counter c = counters.get(key);
    return c != null ? c : counters.computeIfAbsent(key, k -> Counter.builder(name).tags(tags).register(registry));
  }

  /** A gauge {@code name{tenant}} backed by the returned value. */
  public AtomicLong tenantGauge(String name, String tenant) {
    return gauge(name, "tenant", tenant);
  }

  /** A gauge {@code name{tag=value}} backed by the returned value (the same one for the same name and tag). */
  public AtomicLong gauge(String name, String tag, String value) {
    return gauges.computeIfAbsent(name + '|' + tag + '|' + value, k -> {
      AtomicLong v = new AtomicLong();
      Gauge.builder(name, v, AtomicLong::get).tag(tag, value).register(registry);
      return v;
    });
  }
}
