package dev.cairn.policy;

import dev.cairn.nostr.NostrEvent;
import java.util.Set;

/**
 * Muted authors of one tenant: their events are answered {@code OK true} like any accepted event
 * but neither stored nor dispatched (a shadow reject; docs/decisions/0002-policy-rules.md).
 */
final class Mutes {
  private final Set<String> pubkeys;

  Mutes(Set<String> pubkeys) {
    this.pubkeys = Set.copyOf(pubkeys);
  }

  Verdict check(NostrEvent e) {
    return pubkeys.contains(e.pubkey()) ? Verdict.mute() : null;
  }
}
