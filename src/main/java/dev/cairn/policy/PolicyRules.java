package dev.cairn.policy;

import dev.cairn.config.Limits;
import dev.cairn.config.PolicyConfig;
import dev.cairn.config.TenantConfig;
import java.util.Set;

/**
 * The immutable rules of one tenant at one moment: what a reload swaps. The stateful rules
 * (token buckets, remembered content) live beside it in {@link Gatekeeper} and survive a reload
 * when their settings did not change.
 */
record PolicyRules(String tenant, PolicyConfig.TenantPolicy settings, WriteAcl writeAcl, Blacklist blacklist,
    Mutes mutes) {

  static PolicyRules of(String tenant, PolicyConfig.TenantPolicy p, Limits limits, TenantConfig t) {
    Set<String> members = t == null ? Set.of() : t.allowedPubkeys();
    return new PolicyRules(tenant, p, new WriteAcl(limits.restrictedWrites(), members, p.allowPubkeys()),
        new Blacklist(p), new Mutes(p.mutePubkeys()));
  }
}
