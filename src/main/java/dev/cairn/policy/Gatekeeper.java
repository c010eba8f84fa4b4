package dev.cairn.policy;

import dev.cairn.admin.RelayAdmin;
import dev.cairn.admin.TenantAdmin;
import dev.cairn.config.Limits;
import dev.cairn.config.PolicyConfig;
import dev.cairn.config.TenantConfig;
import dev.cairn.config.TenantDirectory;
import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Applies the rules, in their order (docs/decisions/0002-policy-rules.md), over each tenant's
 * current {@link PolicyRules} snapshot and its stateful rules. Single-threaded: owned by the policy
 * node. Every rejection is counted by rule.
 *
 * <p>Events: validity (created_at, expiry, pow, NIP-70), blocked event id, blocked author (the
 * config's lists, then those NIP-86 admins set in {@link RelayAdmin}, read afresh for every event so
 * a ban holds from the moment its call is answered), write allowlist (the config's members and the
 * admins' allowed pubkeys), blocked words, blocked patterns, rate limits (per IP, per pubkey, free-write),
 * duplicate content ({@link #screen}), then the external judges (Java policies, plugin; asked by the
 * policy node, not here), and last mute ({@link #mute}), so a muted author sees the relay exactly as
 * anyone else would.
 */
final class Gatekeeper {
  private final Limits limits;
  private final Map<String, TenantConfig> tenants;
  private final PolicyMetrics metrics;
  private final RelayAdmin admin;
  private final Map<String, PolicyRules> rules = new HashMap<>();
  private final Map<String, TenantState> state = new HashMap<>();
  private final InFlightQueries inFlight = new InFlightQueries();
  /** The live tenant set (runtime tenants included); null: only {@code tenants}. */
  private TenantDirectory directory;
  /** The rules in force, for runtime tenants' defaults. */
  private PolicyConfig policy;
  /** Runtime tenants: the settings their rules were made from (a PUT publishes a new instance). */
  private final Map<String, TenantConfig> runtimeInstalled = new HashMap<>();

  /** The stateful rules of one tenant. */
  private static final class TenantState {
    RateLimits rates;
    DuplicateContent duplicates;

    void configure(PolicyConfig.TenantPolicy p) {
      rates = RateLimits.of(p, rates);
      PolicyConfig.Duplicates d = p.duplicateContent();
      if (!d.enabled()) {
        duplicates = null;
      } else if (duplicates == null || !duplicates.settings().equals(d)) {
        duplicates = new DuplicateContent(d);
      }
    }
  }

  Gatekeeper(Limits limits, Map<String, TenantConfig> tenants, PolicyConfig policy, PolicyMetrics metrics,
      RelayAdmin admin) {
    this.limits = limits;
    this.admin = admin;
    this.tenants = tenants;
    this.metrics = metrics;
    this.policy = policy;
    for (String id : tenants.keySet()) {
      PolicyConfig.TenantPolicy p = policy.tenant(id);
      if (p != null) {
        install(id, p, tenants.get(id));
      }
    }
  }

  /**
   * Runtime tenants (issue 10): their rules are made when first needed, from the defaults a config-file
   * tenant without a {@code policy} block gets, and made again when their settings change.
   */
  Gatekeeper withDirectory(TenantDirectory d) {
    this.directory = d;
    return this;
  }

  private void install(String tenant, PolicyConfig.TenantPolicy p, TenantConfig t) {
    rules.put(tenant, PolicyRules.of(tenant, p, limits, t));
    state.computeIfAbsent(tenant, x -> new TenantState()).configure(p);
  }

  /** The tenant's rules now; for a runtime tenant made (again) from its current settings, dropped when it is gone. */
  private PolicyRules current(String tenant) {
    if (directory == null || tenants.containsKey(tenant)) {
      return rules.get(tenant);
    }
    TenantConfig t = directory.get(tenant);
    if (t == null) {
      if (runtimeInstalled.remove(tenant) != null) {
        rules.remove(tenant);
        state.remove(tenant);
      }
      return null;
    }
    if (runtimeInstalled.get(tenant) != t) {
      install(tenant, policy.forTenant(tenant), t);
      runtimeInstalled.put(tenant, t);
    }
    return rules.get(tenant);
  }

  PolicyRules rules(String tenant) {
    return current(tenant);
  }

  /**
   * Drops the rules and state (rate buckets, duplicate-content memory) of runtime tenants that are gone,
   * including those never looked up again: a removed runtime tenant, the start-up warm-up's tenant.
   */
  void forgetGone() {
    if (directory == null) {
      return;
    }
    runtimeInstalled.keySet().removeIf(tenant -> {
      if (directory.get(tenant) != null) {
        return false;
      }
      rules.remove(tenant);
      state.remove(tenant);
      return true;
    });
  }

  /** Tenants whose rules are in force here (tests). */
  int tenantsWithRules() {
    return rules.size();
  }

  /**
   * Swaps in the rules of {@code next} for every tenant this server runs; tenants the new config
   * does not have keep their rules. Returns what changed, one line per change.
   */
  List<String> update(PolicyConfig next) {
    List<String> changes = new ArrayList<>();
    policy = next;
    runtimeInstalled.clear(); // runtime tenants take the new defaults at their next event
    for (String id : tenants.keySet()) {
      PolicyConfig.TenantPolicy p = next.tenant(id);
      PolicyRules old = rules.get(id);
      if (p == null) {
        changes.add("tenant " + id + ": not in the config file any more, keeping its rules until a restart");
        continue;
      }
      List<String> diff = RulesDiff.describe(old == null ? null : old.settings(), p);
      if (!diff.isEmpty()) {
        install(id, p, tenants.get(id));
        changes.add("tenant " + id + ": " + String.join("; ", diff));
      }
    }
    return changes;
  }

  /** Null to store and dispatch the event; otherwise a rejection or a mute. All the rules, in order. */
  Verdict judge(String tenant, NostrEvent e, String authedPubkey, String ip, long nowMillis, long nowNanos) {
    Verdict v = screen(tenant, e, authedPubkey, ip, nowMillis, nowNanos);
    return v != null ? v : mute(tenant, e);
  }

  /**
   * Every rule but the last (mute): null when the event passed them. The policy node asks the
   * external judges (Java policies, plugin) between this and {@link #mute}.
   */
  Verdict screen(String tenant, NostrEvent e, String authedPubkey, String ip, long nowMillis, long nowNanos) {
    Verdict v = Validity.check(limits, e, authedPubkey, nowMillis / 1000);
    if (v == null) {
      v = tenantRules(tenant, e, ip, nowNanos);
    }
    if (v != null) {
      metrics.rejected(tenant, v.rule());
    }
    return v;
  }

  /** The last rule: a muted author's event that passed everything else is shadow-rejected. */
  Verdict mute(String tenant, NostrEvent e) {
    PolicyRules r = current(tenant);
    Verdict v = r == null ? null : r.mutes().check(e);
    if (v != null) {
      metrics.rejected(tenant, v.rule());
    }
    return v;
  }

  private Verdict tenantRules(String tenant, NostrEvent e, String ip, long nowNanos) {
    PolicyRules r = current(tenant);
    TenantAdmin a = admin == null ? TenantAdmin.EMPTY : admin.of(tenant);
    Verdict v = r == null ? null : r.blacklist().author(e);
    if (v == null) {
      v = AdminChecks.banned(a, e);
    }
    if (r == null) {
      return v != null ? v : AdminChecks.allowlisted(a, null, e);
    }
    if (v == null) {
      v = AdminChecks.allowlisted(a, r.writeAcl(), e);
    }
    if (v == null) {
      v = r.blacklist().content(e);
    }
    TenantState s = state.get(tenant);
    if (v == null) {
      v = s.rates.event(ip, e.pubkey(), nowNanos);
    }
    if (v == null && s.duplicates != null) {
      v = s.duplicates.check(e, nowNanos);
    }
    return v;
  }

  /** A new WebSocket connection: null to keep it, else why it is closed. */
  Verdict admitConnection(String tenant, String ip, long nowNanos) {
    current(tenant);
    TenantState s = state.get(tenant);
    Verdict v = s == null ? null : s.rates.connection(ip, nowNanos);
    if (v != null) {
      metrics.rejected(tenant, v.rule());
    }
    return v;
  }

  /** A REQ or COUNT about to query the store: null to run it (it is then counted as in flight). */
  Verdict admitReq(String tenant, String ip, long connId, long nowNanos) {
    PolicyRules r = current(tenant);
    TenantState s = state.get(tenant);
    Verdict v = s == null ? null : s.rates.req(ip, nowNanos);
    if (v == null) {
      int max = r == null ? 0 : r.settings().maxQueriesInFlight();
      if (!inFlight.tryStart(connId, max)) {
        v = Verdict.reject("queries_in_flight", "rate-limited: too many queries in flight on this connection (max "
            + max + "), wait for EOSE before sending more");
      }
    }
    if (v != null) {
      metrics.rejected(tenant, v.rule());
    }
    return v;
  }

  void queryDone(long connId) {
    inFlight.done(connId);
  }

  void queriesLost() {
    inFlight.clear();
  }

  int queriesInFlight(long connId) {
    return inFlight.running(connId);
  }
}
