package dev.cairn.store.outbox;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.LongSupplier;

/**
 * {@code cairn_outbox_pending}: outbox rows not yet delivered, summed over the open tenant stores, each
 * of which keeps its count current on every write and settle (no query, and no lag behind the last
 * claim). Registered once per server; each database-engine instance points it at its stores, so a
 * redeployed engine takes over the same meter.
 */
public final class OutboxPendingGauge {
  private volatile LongSupplier source = () -> 0;

  public OutboxPendingGauge(MeterRegistry registry) {
    Gauge.builder("cairn_outbox_pending", this, g -> g.source.getAsLong())
        .description("Outbox rows not yet delivered (pending or claimed)")
        .register(registry);
  }

  public void source(LongSupplier s) {
    this.source = s;
  }
}
