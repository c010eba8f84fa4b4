package dev.cairn.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the store holds for the keys one batch touches (see {@link WriteRules#keysOf}): rows by id,
 * rows by address, and NIP-09 tombstones. Fetched once per batch by the dialect, then updated in
 * place by {@link WriteRules#plan} as the batch is applied in order, so later events of the batch
 * see the effect of earlier ones.
 */
public final class WriteSnapshot {
  /** A NIP-09 tombstone: the newest deletion of {@code target} by {@code pubkey}. */
  public record Tombstone(long createdAt, String deletionId) {}

  /** The keys to fetch. */
  public record Keys(Set<String> ids, Set<String> addresses, Set<String> tombstones) {}

  final Map<String, StoredRow> byId = new HashMap<>();
  final Map<String, List<StoredRow>> byAddress = new HashMap<>();
  final Map<String, Tombstone> tombstones = new HashMap<>();
  /** Addresses whose rows were fetched (an empty list means none is stored). */
  final Set<String> fetchedAddresses = new HashSet<>();

  /** Records a stored row found by id or by address. */
  public void addRow(StoredRow row) {
    byId.put(row.id(), row);
    String address = row.address();
    if (address != null) {
      List<StoredRow> rows = byAddress.computeIfAbsent(address, a -> new ArrayList<>(1));
      if (rows.stream().noneMatch(r -> r.seq() == row.seq())) {
        rows.add(row);
      }
    }
  }

  /** Marks an address as fetched (call for every requested address, found or not). */
  public void addressFetched(String address) {
    fetchedAddresses.add(address);
  }

  public void addTombstone(String target, String pubkey, long createdAt, String deletionId) {
    tombstones.put(tombstoneKey(target, pubkey), new Tombstone(createdAt, deletionId));
  }

  static String tombstoneKey(String target, String pubkey) {
    return target + '\n' + pubkey;
  }

  /**
   * Splits a key from {@link Keys#tombstones()} into target and pubkey: at its last newline, as an
   * address's d value may hold newlines and a pubkey never does.
   */
  public static String[] splitTombstoneKey(String key) {
    int i = key.lastIndexOf('\n');
    return new String[] {key.substring(0, i), key.substring(i + 1)};
  }

  /** Splits an address {@code kind:pubkey:d} into kind, pubkey and d (d may contain ':'). */
  public static String[] splitAddress(String address) {
    return address.split(":", 3);
  }
}
