package dev.cairn.policy;

import dev.cairn.config.Limits;
import dev.cairn.nostr.EventTags;
import dev.cairn.nostr.NostrEvent;

/**
 * The protocol checks that need the clock or the connection's identity, before any tenant rule:
 * created_at window, NIP-40 expiry, NIP-13 proof of work, NIP-70 protected events.
 */
final class Validity {
  private Validity() {}

  static Verdict check(Limits limits, NostrEvent e, String authedPubkey, long nowSeconds) {
    if (e.createdAt() > nowSeconds + limits.createdAtUpper()) {
      return Verdict.reject("created_at",
          "invalid: created_at is more than " + limits.createdAtUpper() + " seconds in the future");
    }
    if (limits.createdAtLower() > 0 && e.createdAt() < nowSeconds - limits.createdAtLower()) {
      return Verdict.reject("created_at",
          "invalid: created_at is more than " + limits.createdAtLower() + " seconds in the past");
    }
    Long expiration = EventTags.expiration(e);
    if (expiration != null && expiration <= nowSeconds) {
      return Verdict.reject("expired", "invalid: event has expired");
    }
    if (limits.minPowDifficulty() > 0) {
      int bits = Pow.leadingZeroBits(e.id());
      if (bits < limits.minPowDifficulty()) {
        return Verdict.reject("pow", "pow: difficulty " + bits + " is less than " + limits.minPowDifficulty());
      }
    }
    if (EventTags.isProtected(e) && !e.pubkey().equals(authedPubkey)) {
      return Verdict.reject("protected", authedPubkey == null
          ? "auth-required: this event may only be published by its author"
          : "restricted: this event may only be published by its author");
    }
    return null;
  }
}
