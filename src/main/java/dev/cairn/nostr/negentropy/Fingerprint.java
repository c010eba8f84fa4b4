package dev.cairn.nostr.negentropy;

import java.util.Arrays;

/**
 * The 16-byte digest of the ids in a range (see {@link Accumulator#fingerprint}). Equal
 * fingerprints let both peers skip a range without exchanging its ids.
 */
public record Fingerprint(byte[] bytes) {

  public Fingerprint {
    if (bytes.length != Negentropy.FINGERPRINT_SIZE) {
      throw new IllegalArgumentException("fingerprint must be 16 bytes, got " + bytes.length);
    }
    bytes = bytes.clone();
  }

  /** A copy: the record stays immutable. */
  @Override
  public byte[] bytes() {
    return bytes.clone();
  }

  /** True when the 16 bytes of {@code buf} at {@code off} are this fingerprint (no copy). */
  public boolean matches(byte[] buf, int off) {
    return Arrays.equals(bytes, 0, bytes.length, buf, off, off + bytes.length);
  }

  /** Appends the 16 bytes to {@code out} without a copy. */
  void writeTo(MessageWriter out) {
    out.writeBytes(bytes, 0, bytes.length);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Fingerprint other && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "Fingerprint[" + NegentropyHex.encode(bytes) + "]";
  }
}
