package dev.cairn.nostr;

/** Lowercase hex, the only spelling NIP-01 allows for ids, keys and signatures. */
public final class Hex {
  private static final char[] DIGITS = "0123456789abcdef".toCharArray();

  private Hex() {}

  /** True when {@code s} is exactly {@code length} characters of {@code [0-9a-f]}. */
  public static boolean isLowerHex(String s, int length) {
    if (s == null || s.length() != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (nibble(s.charAt(i)) < 0) {
        return false;
      }
    }
    return true;
  }

  public static String encode(byte[] bytes) {
    char[] out = new char[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      int b = bytes[i] & 0xff;
      out[2 * i] = DIGITS[b >>> 4];
      out[2 * i + 1] = DIGITS[b & 0x0f];
    }
    return new String(out);
  }

  /** Decodes lowercase hex; throws IllegalArgumentException on odd length or any other char. */
  public static byte[] decode(String hex) {
    if ((hex.length() & 1) != 0) {
      throw new IllegalArgumentException("hex string of odd length");
    }
    byte[] out = new byte[hex.length() / 2];
    for (int i = 0; i < out.length; i++) {
      int hi = nibble(hex.charAt(2 * i));
      int lo = nibble(hex.charAt(2 * i + 1));
      if (hi < 0 || lo < 0) {
        throw new IllegalArgumentException("not lowercase hex");
      }
      out[i] = (byte) ((hi << 4) | lo);
    }
    return out;
  }

  /** Compares hex text to raw bytes without allocating (used to check a computed id). */
  public static boolean equalsBytes(String hex, byte[] bytes) {
    if (hex == null || hex.length() != bytes.length * 2) {
      return false;
    }
    for (int i = 0; i < bytes.length; i++) {
      int b = bytes[i] & 0xff;
      if (hex.charAt(2 * i) != DIGITS[b >>> 4] || hex.charAt(2 * i + 1) != DIGITS[b & 0x0f]) {
        return false;
      }
    }
    return true;
  }

  private static int nibble(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    return -1;
  }
}
