package dev.cairn.delivery.outbox;

import dev.cairn.metrics.Meters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The outbox's meters (CONTRACT section 6): {@code cairn_outbox_pending},
 * {@code cairn_outbox_dead_lettered_total}, {@code cairn_outbox_published_total{backend}},
 * {@code cairn_handler_runs_total{handler,result}}.
 */
public final class OutboxMetrics {
  private static final String PUBLISHED = "cairn_outbox_published_total";

  private final MeterRegistry registry;
  private final Meters meters;
  private final Counter deadLettered;

  public OutboxMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.meters = new Meters(registry);
    this.deadLettered = Counter.builder("cairn_outbox_dead_lettered_total")
        .description("Outbox rows that used their last attempt (db: dead_lettered; JetStream: max deliveries)")
        .register(registry);
  }

  /** {@code cairn_outbox_nats_connected}: 1 while the relay's NATS connection is up, 0 during an outage. */
  public void natsConnected(java.util.function.BooleanSupplier up) {
    io.micrometer.core.instrument.Gauge.builder("cairn_outbox_nats_connected", () -> up.getAsBoolean() ? 1 : 0)
        .description("1 while the outbox relay is connected to NATS (nats backend)")
        .register(registry);
  }

  public void deadLettered(int rows) {
    deadLettered.increment(rows);
  }

  public void published(String backend, int rows) {
    meters.counter(PUBLISHED, "backend", backend).increment(rows);
  }

  /**
   * {@code cairn_outbox_published_total{backend="db"}} for the rows a store writes done (nothing to deliver
   * outside the DB): the same meter {@link #published} counts into.
   */
  public static java.util.function.IntConsumer publishedInDb(MeterRegistry registry) {
    Counter c = Counter.builder(PUBLISHED).tag("backend", OutboxSettings.DB).register(registry);
    return c::increment;
  }

  /** {@code result}: ok, failed, skipped (done already), deferred (claimed elsewhere), ledger_error. */
  public void handlerRun(String handler, String result) {
    meters.counter("cairn_handler_runs_total", "handler", handler, "result", result).increment();
  }
}
