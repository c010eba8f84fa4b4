package dev.cairn.nostr.negentropy;

/**
 * The protocol's unsigned varint: base-128 digits, most significant first, high bit set on every
 * byte but the last, as few digits as possible. (Note: the opposite digit order from protobuf's
 * LEB128.) Values are unsigned 64-bit, held in a Java {@code long}.
 */
public final class Varint {
  /** The longest encoding of a 64-bit value. */
  public static final int MAX_LENGTH = 10;

  private Varint() {}

  /** Bytes needed to encode {@code value} (unsigned). */
  public static int length(long value) {
    int bits = 64 - Long.numberOfLeadingZeros(value);
    return bits == 0 ? 1 : (bits + 6) / 7;
  }

  public static byte[] encode(long value) {
    byte[] out = new byte[length(value)];
    encodeInto(value, out, 0);
    return out;
  }

  /** Writes {@code value} at {@code off}; returns the number of bytes written. */
  static int encodeInto(long value, byte[] dst, int off) {
    int len = length(value);
    for (int i = len - 1; i >= 0; i--) {
      int digit = (int) (value & 0x7f);
      dst[off + i] = (byte) (i == len - 1 ? digit : digit | 0x80);
      value >>>= 7;
    }
    return len;
  }

  /**
   * Decodes {@code buf}, which must hold exactly one varint (tools and tests; message parsing goes
   * through the protocol reader).
   */
  public static long decode(byte[] buf) throws NegentropyException {
    MessageReader in = new MessageReader(buf);
    long value = in.readVarint();
    if (in.hasRemaining()) {
      throw new NegentropyException("trailing bytes after varint at offset " + in.position());
    }
    return value;
  }
}
