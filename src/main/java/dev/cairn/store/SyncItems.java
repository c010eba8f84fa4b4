package dev.cairn.store;

import dev.cairn.nostr.negentropy.VectorStorage;

/**
 * What a NIP-77 NEG-OPEN read found: the (created_at, id) items of the matching stored events, or,
 * when more than the cap matched, only how many did ({@code items} null).
 */
public record SyncItems(VectorStorage items, long matched) {

  /** True when the filter matched more events than the cap allowed (no items were kept). */
  public boolean tooMany() {
    return items == null;
  }
}
