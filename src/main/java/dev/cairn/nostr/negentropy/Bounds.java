package dev.cairn.nostr.negentropy;

import java.util.Arrays;

/** Comparisons between stored items and bounds, shared by the storages and the reconciler. */
final class Bounds {
  private Bounds() {}

  /**
   * True when the item (timestamp, 32 id bytes at {@code off}) sorts before {@code bound}. The
   * bound's missing trailing bytes are zeros, which no id byte is below, so only the prefix length
   * is compared.
   */
  static boolean itemBelow(long timestamp, byte[] ids, int off, Bound bound) {
    int c = Long.compareUnsigned(timestamp, bound.timestamp());
    if (c != 0) {
      return c < 0;
    }
    return bound.comparePrefixTo(ids, off) > 0;
  }

  /**
   * The shortest bound that separates item {@code prev} from the next item {@code curr} (sorted,
   * distinct): the bare timestamp when they differ there, else the shared id prefix plus one byte.
   */
  static Bound minimal(long prevTimestamp, byte[] prevId, long currTimestamp, byte[] currId) {
    if (prevTimestamp != currTimestamp) {
      return new Bound(currTimestamp, new byte[0]);
    }
    int shared = Arrays.mismatch(prevId, currId);
    int len = shared < 0 ? Negentropy.ID_SIZE : Math.min(shared + 1, Negentropy.ID_SIZE);
    return new Bound(currTimestamp, Arrays.copyOf(currId, len));
  }
}
