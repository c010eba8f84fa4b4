package dev.cairn.policy;

import dev.cairn.admin.TenantAdmin;
import dev.cairn.config.Limits;
import dev.cairn.config.PolicyConfig;
import dev.cairn.config.TenantConfig;
import dev.cairn.nostr.EventTags;
import dev.cairn.nostr.NostrEvent;

/**
 * The write rules of one tenant that mean something without a connection, for events imported
 * straight into the store ({@code cairn import --direct}): what the tenant may hold, not how fast or
 * from where it is written. Same messages as the live path (ConnWorker, {@link Validity},
 * {@link Gatekeeper}). Immutable and thread-safe: verification threads ask it.
 *
 * <p>Applied, in the live order: NIP-70 protected events (refused unless allowed: an import is
 * not their author), content length and tag count, created_at not too far in the future, NIP-40
 * expired, NIP-13 proof of work, blocked event ids and authors (the config's, then NIP-86's when
 * {@link #withAdmin} gave them), the write allowlist, blocked words and patterns, then mutes (a
 * shadow reject: not stored).
 *
 * <p>Not applied: the created_at lower bound (imports bring old events), auth, rate limits and
 * free-write limiter, duplicate content, Java policies and the plugin (they judge live traffic: an
 * import through the running relay, {@code cairn import --url}, gets every rule).
 */
public final class OfflineRules {
  /** The answer for a muted author's event: shadow-rejected, not stored. */
  public static final String MUTED = "muted: not stored (policy.mute_pubkeys)";
  public static final String PROTECTED =
      "restricted: NIP-70 protected event, only its author may publish it (import with --allow-protected)";

  private final Limits limits;
  private final PolicyRules rules;
  private final boolean allowProtected;
  /** What NIP-86 admins set for the tenant (meta DB), applied like the config's lists. */
  private final TenantAdmin admin;

  private OfflineRules(Limits limits, PolicyRules rules, boolean allowProtected, TenantAdmin admin) {
    this.limits = limits;
    this.rules = rules;
    this.allowProtected = allowProtected;
    this.admin = admin;
  }

  /** These rules plus the bans and allowed pubkeys NIP-86 admins set for the tenant. */
  public OfflineRules withAdmin(TenantAdmin admin) {
    return new OfflineRules(limits, rules, allowProtected, admin);
  }

  /** The rules of {@code tenant} under {@code limits} and {@code policy}; null policy: no tenant rules. */
  public static OfflineRules of(Limits limits, PolicyConfig policy, TenantConfig tenant, boolean allowProtected) {
    PolicyConfig.TenantPolicy p = policy == null || tenant == null ? null : policy.tenant(tenant.id());
    return new OfflineRules(limits, p == null ? null : PolicyRules.of(tenant.id(), p, limits, tenant), allowProtected,
        TenantAdmin.EMPTY);
  }

  /** Null when {@code e} may be stored, {@link #MUTED}, or the refusal message. */
  public String check(NostrEvent e, long nowSeconds) {
    if (!allowProtected && EventTags.isProtected(e)) {
      return PROTECTED;
    }
    if (e.bytes().contentLength() > limits.maxContentLength()) {
      return "invalid: content is longer than " + limits.maxContentLength() + " bytes";
    }
    if (e.tags().size() > limits.maxEventTags()) {
      return "invalid: more than " + limits.maxEventTags() + " tags";
    }
    if (e.createdAt() > nowSeconds + limits.createdAtUpper()) {
      return "invalid: created_at is more than " + limits.createdAtUpper() + " seconds in the future";
    }
    Long expiration = EventTags.expiration(e);
    if (expiration != null && expiration <= nowSeconds) {
      return "invalid: event has expired";
    }
    if (limits.minPowDifficulty() > 0) {
      int bits = Pow.leadingZeroBits(e.id());
      if (bits < limits.minPowDifficulty()) {
        return "pow: difficulty " + bits + " is less than " + limits.minPowDifficulty();
      }
    }
    Verdict v = rules == null ? null : rules.blacklist().author(e);
    if (v == null) {
      v = AdminChecks.banned(admin, e);
    }
    if (v == null) {
      v = AdminChecks.allowlisted(admin, rules == null ? null : rules.writeAcl(), e);
    }
    if (rules == null) {
      return v == null ? null : v.message();
    }
    if (v == null) {
      v = rules.blacklist().content(e);
    }
    if (v == null) {
      v = rules.mutes().check(e);
    }
    return v == null ? null : v.muted() ? MUTED : v.message();
  }
}
