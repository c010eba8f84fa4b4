package dev.cairn.policy;

import dev.cairn.nostr.NostrEvent;
import java.util.HashSet;
import java.util.Set;

/**
 * Who may publish to one tenant. Enforced when {@code limits.restricted_writes} is set, or when the
 * tenant's {@code policy.allow_pubkeys} lists anyone; the members are the tenant's
 * {@code allowed_pubkeys} together with its {@code policy.allow_pubkeys}.
 */
final class WriteAcl {
  private final boolean enforced;
  private final Set<String> members;

  WriteAcl(boolean restrictedWrites, Set<String> allowedPubkeys, Set<String> policyAllowPubkeys) {
    this.enforced = restrictedWrites || !policyAllowPubkeys.isEmpty();
    Set<String> m = new HashSet<>(allowedPubkeys);
    m.addAll(policyAllowPubkeys);
    this.members = Set.copyOf(m);
  }

  boolean enforced() {
    return enforced;
  }

  Verdict check(NostrEvent e) {
    if (enforced && !members.contains(e.pubkey())) {
      return Verdict.reject("allowlist", "restricted: this relay only accepts events from its members");
    }
    return null;
  }
}
