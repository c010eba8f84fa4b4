package dev.cairn.policy;

import dev.cairn.config.PolicyConfig;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The judges outside the built-in rules, asked about an event that passed them, in this order:
 * the tenant's Java policies ({@code java_policies}, listed order), then its plugin ({@code plugin}).
 * The first that does not accept decides; mute comes after both (docs/decisions/0002-policy-rules.md).
 * Owns the plugin processes: one per distinct command, shared by the tenants that name it.
 */
final class ExternalJudges {
  private static final Logger LOG = Logger.getLogger(ExternalJudges.class.getName());
  static final String JAVA_RULE = "java_policy";

  private final Vertx vertx;
  private final JavaPolicies java;
  private final PolicyMetrics metrics;
  /** Running plugins by command key. */
  private final Map<String, Plugin> plugins = new HashMap<>();
  /** Each tenant's plugin, when it has one. */
  private final Map<String, Plugin> byTenant = new HashMap<>();
  private boolean closed;

  ExternalJudges(Vertx vertx, JavaPolicies java, PolicyMetrics metrics) {
    this.vertx = vertx;
    this.java = java;
    this.metrics = metrics;
  }

  static boolean any(PolicyConfig.TenantPolicy p) {
    return p.plugin().enabled() || !p.javaPolicies().isEmpty();
  }

  /**
   * Starts the plugins {@code tenants} name that are not running, and stops those no tenant names
   * any more (they finish what they hold). At start and after every reload.
   */
  void configure(PolicyConfig config, Set<String> tenants) {
    if (closed) {
      return;
    }
    Set<String> used = new HashSet<>();
    byTenant.clear();
    for (String t : tenants) {
      PolicyConfig.TenantPolicy p = config.tenant(t);
      if (p == null || !p.plugin().enabled()) {
        continue;
      }
      String key = p.plugin().key();
      used.add(key);
      byTenant.put(t, plugins.computeIfAbsent(key, k -> new Plugin(vertx, p.plugin(), metrics)));
    }
    plugins.entrySet().removeIf(e -> {
      if (used.contains(e.getKey())) {
        return false;
      }
      e.getValue().retire();
      return true;
    });
  }

  /** Null when every judge accepts; otherwise the first verdict that is not an accept. On the event loop. */
  Future<Verdict> judge(String tenant, PolicyConfig.TenantPolicy p, NostrEvent e, String ip, String authed,
      long receivedAt) {
    List<String> names = p.javaPolicies();
    PolicyRequest req = names.isEmpty() ? null : new PolicyRequest(tenant, e, ip, authed, receivedAt);
    return javaChain(names, 0, req).compose(v -> {
      if (v != null || !p.plugin().enabled()) {
        return Future.succeededFuture(v);
      }
      Plugin plugin = byTenant.get(tenant);
      if (plugin == null) {
        return Future.succeededFuture(null); // configure() has not caught up with a reload yet
      }
      return plugin.judge(tenant, p.plugin(), e, ip, authed, receivedAt);
    });
  }

  private Future<Verdict> javaChain(List<String> names, int from, PolicyRequest req) {
    for (int i = from; i < names.size(); i++) {
      String name = names.get(i);
      WritePolicy policy = java.get(name);
      if (policy == null) {
        continue; // listed by a reload whose prepare failed: that reload did not apply
      }
      if (policy.blocking()) {
        int next = i + 1;
        return vertx.executeBlocking(() -> call(name, policy, req), false)
            .compose(v -> v != null ? Future.succeededFuture(v) : javaChain(names, next, req));
      }
      Verdict v = call(name, policy, req);
      if (v != null) {
        return Future.succeededFuture(v);
      }
    }
    return Future.succeededFuture(null);
  }

  private static Verdict call(String name, WritePolicy policy, PolicyRequest req) {
    WritePolicy.Decision d;
    try {
      d = policy.judge(req);
      if (d == null) {
        throw new NullPointerException("judge returned null");
      }
    } catch (RuntimeException | Error t) {
      if (t instanceof VirtualMachineError vme) {
        throw vme;
      }
      LOG.log(Level.WARNING, "Java policy " + name + " failed on event " + req.event().id()
          + " of tenant " + req.tenant() + "; the event is refused", t);
      return Verdict.reject(JAVA_RULE, "error: internal error");
    }
    return switch (d.action()) {
      case ACCEPT -> null;
      case REJECT -> Verdict.reject(JAVA_RULE, PluginProtocol.rejection(d.message()));
      case SHADOW_REJECT -> new Verdict(JAVA_RULE, null, true);
    };
  }

  /** The policy node stops: every plugin process is killed. */
  void close() {
    closed = true;
    plugins.values().forEach(Plugin::close);
    plugins.clear();
    byTenant.clear();
  }
}
