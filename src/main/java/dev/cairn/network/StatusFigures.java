package dev.cairn.network;

import dev.cairn.metrics.CairnMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;

/**
 * The live figures of {@code /status.json} (polled by the status page), read from the meters that
 * {@code /metrics} exposes, so the page and Prometheus never disagree. The rates are computed here
 * from two readings of the counters at least {@link #MIN_SAMPLE_MILLIS} apart. One per listener,
 * used on its event loop only.
 */
final class StatusFigures {
  static final long MIN_SAMPLE_MILLIS = 1000;

  private final CairnMetrics metrics;
  private final MeterRegistry registry;
  private final long startedAt = System.currentTimeMillis();
  private final Map<String, Samples> samples = new HashMap<>();

  /** Counter readings of one tenant: the newest and the one before, for the rates. */
  private static final class Samples {
    long prevAt;
    double prevStored;
    double prevReceived;
    long lastAt;
    double lastStored;
    double lastReceived;
  }

  StatusFigures(CairnMetrics metrics) {
    this.metrics = metrics;
    this.registry = metrics.registry();
  }

  JsonObject of(String tenant) {
    long now = System.currentTimeMillis();
    double stored = counter("cairn_events_stored_total", tenant);
    JsonObject byResult = new JsonObject();
    double received = 0;
    for (Counter c : registry.find("cairn_events_received_total").tag("tenant", tenant).counters()) {
      byResult.put(c.getId().getTag("result"), (long) c.count());
      received += c.count();
    }
    Samples s = samples.computeIfAbsent(tenant, t -> {
      Samples x = new Samples();
      x.prevAt = x.lastAt = startedAt;
      return x;
    });
    if (now - s.lastAt >= MIN_SAMPLE_MILLIS) {
      s.prevAt = s.lastAt;
      s.prevStored = s.lastStored;
      s.prevReceived = s.lastReceived;
      s.lastAt = now;
      s.lastStored = stored;
      s.lastReceived = received;
    }
    double seconds = Math.max(1, now - s.prevAt) / 1000.0;
    return new JsonObject()
        .put("tenant", tenant)
        .put("ts", now)
        .put("uptime_seconds", (now - startedAt) / 1000)
        .put("connections", metrics.connections(tenant).get())
        .put("subscriptions", metrics.subscriptions(tenant).get())
        .put("events_stored_total", (long) stored)
        .put("events_received_total", (long) received)
        .put("events_received", byResult)
        .put("events_stored_per_second", round((stored - s.prevStored) / seconds))
        .put("events_received_per_second", round((received - s.prevReceived) / seconds))
        .put("sse_connections", (long) gauge("cairn_sse_connections", tenant))
        .put("feed_rows", (long) gauge("cairn_feed_rows", tenant))
        // process-wide: the outbox rows not yet handled, and the changes waiting to get into a feed
        .put("outbox_pending", (long) gauge("cairn_outbox_pending", null))
        .put("feed_retry_buffer_depth", (long) gauge("cairn_feed_retry_buffer_depth", null));
  }

  private double counter(String name, String tenant) {
    Counter c = registry.find(name).tag("tenant", tenant).counter();
    return c == null ? 0 : c.count();
  }

  /** The gauge's value (0 when it is not registered yet); {@code tenant} null: an untagged gauge. */
  private double gauge(String name, String tenant) {
    var search = registry.find(name);
    Gauge g = tenant == null ? search.gauge() : search.tag("tenant", tenant).gauge();
    double v = g == null ? 0 : g.value();
    return Double.isNaN(v) ? 0 : v;
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
