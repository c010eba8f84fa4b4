package dev.cairn.nostr.negentropy;

import java.util.Arrays;

/**
 * A 32-byte id as a hash key, for matching the peer's id list against ours. Comparable so that
 * {@link java.util.HashMap} degrades to a tree, not a list, if a peer crafts colliding hashes.
 */
final class IdKey implements Comparable<IdKey> {
  private final byte[] id;
  private final int hash;

  IdKey(byte[] buf, int off) {
    this.id = Arrays.copyOfRange(buf, off, off + Negentropy.ID_SIZE);
    this.hash = Arrays.hashCode(id);
  }

  byte[] bytes() {
    return id.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IdKey other && hash == other.hash && Arrays.equals(id, other.id);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public int compareTo(IdKey other) {
    return Arrays.compareUnsigned(id, other.id);
  }
}
