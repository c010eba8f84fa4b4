package dev.cairn.network;

/** Strict UTF-8 validation of wire bytes (RFC 6455: a text message that is not UTF-8 fails the connection). */
final class Utf8 {
  private static final java.lang.invoke.VarHandle LONGS =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

  private Utf8() {}

  /**
   * True when {@code b} is well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing
   * above U+10FFFF, no truncated sequence. ASCII runs are checked eight bytes at a time.
   */
  static boolean isValid(byte[] b) {
    int i = 0;
    int n = b.length;
    while (i < n) {
      // fast path: 8 ASCII bytes at once
      while (i + 8 <= n && (readLong(b, i) & 0x8080808080808080L) == 0) {
        i += 8;
      }
      if (i >= n) {
        return true;
      }
      int c = b[i] & 0xff;
      if (c < 0x80) {
        i++;
      } else if (c >= 0xc2 && c <= 0xdf) {
        if (i + 1 >= n || !cont(b[i + 1])) {
          return false;
        }
        i += 2;
      } else if (c >= 0xe0 && c <= 0xef) {
        if (i + 2 >= n || !cont(b[i + 1]) || !cont(b[i + 2])) {
          return false;
        }
        int c1 = b[i + 1] & 0xff;
        if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 > 0x9f)) {
          return false; // overlong, or a UTF-16 surrogate
        }
        i += 3;
      } else if (c >= 0xf0 && c <= 0xf4) {
        if (i + 3 >= n || !cont(b[i + 1]) || !cont(b[i + 2]) || !cont(b[i + 3])) {
          return false;
        }
        int c1 = b[i + 1] & 0xff;
        if ((c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 > 0x8f)) {
          return false; // overlong, or above U+10FFFF
        }
        i += 4;
      } else {
        return false;
      }
    }
    return true;
  }

  private static boolean cont(byte x) {
    return (x & 0xc0) == 0x80;
  }

  private static long readLong(byte[] b, int i) {
    return (long) LONGS.get(b, i);
  }
}
