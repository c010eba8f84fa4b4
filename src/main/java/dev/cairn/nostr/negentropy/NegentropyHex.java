package dev.cairn.nostr.negentropy;

/**
 * Hex for NIP-77 frames, which carry the binary messages hex-encoded. Writes lowercase; reads
 * either case, as the reference JS implementation does.
 */
public final class NegentropyHex {
  private static final char[] DIGITS = "0123456789abcdef".toCharArray();

  private NegentropyHex() {}

  public static String encode(byte[] bytes) {
    char[] out = new char[bytes.length * 2];
    for (int i = 0; i < bytes.length; i++) {
      int b = bytes[i] & 0xff;
      out[2 * i] = DIGITS[b >>> 4];
      out[2 * i + 1] = DIGITS[b & 0x0f];
    }
    return new String(out);
  }

  /** Throws {@link IllegalArgumentException} on odd length or a non-hex character. */
  public static byte[] decode(String hex) {
    if ((hex.length() & 1) != 0) {
      throw new IllegalArgumentException("hex string of odd length " + hex.length());
    }
    byte[] out = new byte[hex.length() / 2];
    for (int i = 0; i < out.length; i++) {
      int hi = digit(hex.charAt(2 * i));
      int lo = digit(hex.charAt(2 * i + 1));
      if (hi < 0 || lo < 0) {
        throw new IllegalArgumentException("not hex at offset " + (hi < 0 ? 2 * i : 2 * i + 1));
      }
      out[i] = (byte) ((hi << 4) | lo);
    }
    return out;
  }

  // ASCII only: Character.digit would also read fullwidth and other scripts' digits ("６１" as 0x61).
  private static int digit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }
}
