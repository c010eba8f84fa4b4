package dev.cairn.store;

import dev.cairn.nostr.NostrEvent;
import java.util.List;

/**
 * What one batch does to the store, decided by {@link WriteRules}: a result per event (input order)
 * and the writes, in the order they must run. Seqs are assigned by the rules (last stored seq + 1
 * onwards), so the store writes them as given.
 */
public record WritePlan(List<PersistResult> results, List<Op> ops, long highWater) {

  /** One write. */
  public sealed interface Op {}

  /** Store {@code event} under {@code seq}; {@code dTag} is null for regular kinds, "" for replaceable ones. */
  public record Insert(long seq, NostrEvent event, String dTag, Long expiration) implements Op {}

  /** Remove a stored row (or one inserted earlier in the batch). */
  public record Remove(StoredRow row, RemovalReason reason) implements Op {}

  /** Record (or raise) the NIP-09 tombstone of {@code target} by {@code pubkey}. */
  public record Tombstone(String target, String pubkey, long createdAt, String deletionId) implements Op {}
}
