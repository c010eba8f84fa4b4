package dev.cairn.policy;

import dev.cairn.metrics.Meters;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code cairn_policy_rejected_total{tenant,rule}}: events, REQs and connections refused (or, for
 * rule {@code mute}, silently dropped) by each rule; {@code cairn_policy_reloads_total{result}}:
 * rule reloads, {@code ok} or {@code error} (a broken file; the old rules stay);
 * {@code cairn_policy_plugin_requests_total{tenant,action}}: events put to a write-policy plugin, by
 * outcome ({@code accept}, {@code reject}, {@code shadowReject}, {@code timeout}, {@code error},
 * {@code overload}); {@code cairn_policy_plugin_restarts_total{plugin,reason}}: plugin processes
 * started again ({@code exit}, {@code hung}, {@code changed}, {@code start_failed}).
 */
final class PolicyMetrics {
  private final Meters meters;

  PolicyMetrics(MeterRegistry registry) {
    this.meters = new Meters(registry);
  }

  void rejected(String tenant, String rule) {
    meters.counter("cairn_policy_rejected_total", "tenant", tenant, "rule", rule).increment();
  }

  void pluginRequest(String tenant, String action) {
    meters.counter("cairn_policy_plugin_requests_total", "tenant", tenant, "action", action).increment();
  }

  void pluginRestarted(String plugin, String reason) {
    meters.counter("cairn_policy_plugin_restarts_total", "plugin", plugin, "reason", reason).increment();
  }

  void reloaded(boolean ok) {
    meters.counter("cairn_policy_reloads_total", "result", ok ? "ok" : "error").increment();
  }
}
