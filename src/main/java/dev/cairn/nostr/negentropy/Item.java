package dev.cairn.nostr.negentropy;

import java.util.Arrays;

/**
 * One record of a reconciled set: a timestamp (an unsigned 64-bit value, NIP-77 uses the event's
 * {@code created_at}) and a 32-byte id. Items sort by timestamp, then by id bytes, unsigned and
 * lexicographic: the order both peers must agree on for bounds and fingerprints to mean the same
 * thing on each side.
 *
 * <p>A value object for tools and tests; {@link VectorStorage} keeps its items in primitive arrays
 * and only builds an {@code Item} when asked for one.
 */
public record Item(long timestamp, byte[] id) implements Comparable<Item> {

  public Item {
    if (id.length != Negentropy.ID_SIZE) {
      throw new IllegalArgumentException("item id must be 32 bytes, got " + id.length);
    }
    id = id.clone();
  }

  /** A copy: the record stays immutable. */
  @Override
  public byte[] id() {
    return id.clone();
  }

  @Override
  public int compareTo(Item other) {
    int c = Long.compareUnsigned(timestamp, other.timestamp);
    return c != 0 ? c : Arrays.compareUnsigned(id, other.id);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Item other && timestamp == other.timestamp && Arrays.equals(id, other.id);
  }

  @Override
  public int hashCode() {
    return 31 * Long.hashCode(timestamp) + Arrays.hashCode(id);
  }

  @Override
  public String toString() {
    return "Item[" + Long.toUnsignedString(timestamp) + ", " + NegentropyHex.encode(id) + "]";
  }
}
