package dev.cairn.policy;

import dev.cairn.metrics.Meters;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code cairn_policy_rejected_total{tenant,rule}}: events, REQs and connections refused (or, for
 * rule {@code mute}, silently dropped) by each rule; {@code cairn_policy_reloads_total{result}}:
 * rule reloads, {@code ok} or {@code error} (a broken file; the old rules stay).
 */
final class PolicyMetrics {
  private final Meters meters;

  PolicyMetrics(MeterRegistry registry) {
    this.meters = new Meters(registry);
  }

  void rejected(String tenant, String rule) {
    meters.counter("cairn_policy_rejected_total", "tenant", tenant, "rule", rule).increment();
  }

  void reloaded(boolean ok) {
    meters.counter("cairn_policy_reloads_total", "result", ok ? "ok" : "error").increment();
  }
}
