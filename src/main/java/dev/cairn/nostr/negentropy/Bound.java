package dev.cairn.nostr.negentropy;

import java.util.Arrays;

/**
 * A position in the (timestamp, id) space: the exclusive upper end of a range. The id is a prefix
 * of 0 to 32 bytes; the missing trailing bytes are zeros, so a bound with an empty prefix sits
 * before every item of its timestamp. Senders use the shortest prefix that still separates the last
 * item of one range from the first of the next, which keeps messages small when timestamps repeat.
 *
 * <p>{@link #INFINITY} (timestamp {@code 2^64-1}) is past every item; the spec reserves that
 * timestamp, so no item may carry it.
 */
public record Bound(long timestamp, byte[] idPrefix) {

  /** The unsigned timestamp {@code 2^64-1}, reserved to mean "after everything". */
  public static final long INFINITE_TIMESTAMP = -1L;

  /** The upper bound of the last range of every message. */
  public static final Bound INFINITY = new Bound(INFINITE_TIMESTAMP, new byte[0]);

  /** The implicit lower bound of the first range: timestamp 0, empty prefix. */
  public static final Bound ZERO = new Bound(0, new byte[0]);

  public Bound {
    if (idPrefix.length > Negentropy.ID_SIZE) {
      throw new IllegalArgumentException(
          "bound id prefix longer than 32 bytes: " + idPrefix.length);
    }
    idPrefix = idPrefix.clone();
  }

  /** The bound that sits exactly at {@code item}: full 32-byte id. */
  public static Bound of(Item item) {
    return new Bound(item.timestamp(), item.id());
  }

  /** A copy: the record stays immutable. */
  @Override
  public byte[] idPrefix() {
    return idPrefix.clone();
  }

  /** Prefix length without copying. */
  public int prefixLength() {
    return idPrefix.length;
  }

  /** Unsigned comparison of the prefix with {@code len} bytes of {@code buf} at {@code off}. */
  int comparePrefixTo(byte[] buf, int off) {
    return Arrays.compareUnsigned(idPrefix, 0, idPrefix.length, buf, off, off + idPrefix.length);
  }

  /** Byte {@code i} of the prefix (package use: encoding without a copy). */
  byte prefixByte(int i) {
    return idPrefix[i];
  }

  public boolean isInfinity() {
    return timestamp == INFINITE_TIMESTAMP;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Bound other
        && timestamp == other.timestamp
        && Arrays.equals(idPrefix, other.idPrefix);
  }

  @Override
  public int hashCode() {
    return 31 * Long.hashCode(timestamp) + Arrays.hashCode(idPrefix);
  }

  @Override
  public String toString() {
    return "Bound["
        + (isInfinity() ? "infinity" : Long.toUnsignedString(timestamp))
        + ", "
        + NegentropyHex.encode(idPrefix)
        + "]";
  }
}
