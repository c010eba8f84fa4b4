package dev.cairn.policy;

import dev.cairn.config.Limits;
import dev.cairn.config.TenantConfig;
import dev.cairn.nostr.EventTags;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.root.RootInbox;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Channels;
import dev.cairn.tree.Inbox;
import dev.cairn.tree.Supervised;
import io.vertx.core.Future;
import java.util.Map;

/**
 * The write gate after the signature pass: created_at window, NIP-40 expiry, NIP-13 proof of work,
 * NIP-70 protected events, per-tenant write allowlist and the free-write rate limiter. Answers
 * each Judge with null (pass) or a NIP-01 prefixed reason.
 */
public final class Policy extends Supervised {
  private final Channels channels;
  private final Limits limits;
  private final Map<String, TenantConfig> tenants;
  private final WriteRateLimiter limiter;
  private BoundedChannel<RootInbox> toRoot;

  public Policy(Channels channels, Limits limits, Map<String, TenantConfig> tenants, double writesPerSecond,
      CrashReporter root) {
    super(root);
    this.channels = channels;
    this.limits = limits;
    this.tenants = tenants;
    this.limiter = new WriteRateLimiter(writesPerSecond, Math.max(1, writesPerSecond * 10));
  }

  @Override
  protected Future<?> startNode() {
    toRoot = channels.open("policy->root", Addresses.ROOT);
    new Inbox<>(vertx, Addresses.POLICY, PolicyInbox.class, msg -> {
      PolicyInbox.Judge j = (PolicyInbox.Judge) msg;
      toRoot.sendOwed(new RootInbox.Judged(j.ticket(), judge(j.tenant(), j.event(), j.authedPubkey())));
    });
    return Future.succeededFuture();
  }

  String judge(String tenant, NostrEvent e, String authedPubkey) {
    long now = System.currentTimeMillis() / 1000;
    if (e.createdAt() > now + limits.createdAtUpper()) {
      return "invalid: created_at is more than " + limits.createdAtUpper() + " seconds in the future";
    }
    if (limits.createdAtLower() > 0 && e.createdAt() < now - limits.createdAtLower()) {
      return "invalid: created_at is more than " + limits.createdAtLower() + " seconds in the past";
    }
    Long expiration = EventTags.expiration(e);
    if (expiration != null && expiration <= now) {
      return "invalid: event has expired";
    }
    if (limits.minPowDifficulty() > 0) {
      int bits = Pow.leadingZeroBits(e.id());
      if (bits < limits.minPowDifficulty()) {
        return "pow: difficulty " + bits + " is less than " + limits.minPowDifficulty();
      }
    }
    if (EventTags.isProtected(e) && !e.pubkey().equals(authedPubkey)) {
      return authedPubkey == null
          ? "auth-required: this event may only be published by its author"
          : "restricted: this event may only be published by its author";
    }
    TenantConfig t = tenants.get(tenant);
    if (limits.restrictedWrites() && t != null && !t.allowedPubkeys().contains(e.pubkey())) {
      return "restricted: this relay only accepts events from its members";
    }
    if (limiter.enabled() && !limiter.tryAcquire(tenant + ":" + e.pubkey(), System.nanoTime())) {
      return "rate-limited: slow down, too many events from this pubkey";
    }
    return null;
  }
}
