package dev.cairn.nostr;

import java.util.Arrays;

/**
 * A growable UTF-8 byte buffer for outgoing JSON: strings are escaped exactly as {@link JsonStrings}
 * does (the seven short escapes, other C0 controls as {@code &#92;u00XX}, everything else verbatim)
 * and encoded straight to UTF-8, so no intermediate String is built. Not thread-safe; one per use.
 */
public final class JsonBytes {
  private static final byte[] HEX = "0123456789ABCDEF".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private byte[] buf;
  private int len;
  /** Whether a string written so far needed a {@code &#92;u00XX} escape (its JSON and NIP-01 forms differ). */
  private boolean controlEscape;

  public JsonBytes(int capacity) {
    buf = new byte[Math.max(16, capacity)];
  }

  public int length() {
    return len;
  }

  public boolean hadControlEscape() {
    return controlEscape;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buf, len);
  }

  public JsonBytes ascii(String s) {
    int n = s.length();
    ensure(n);
    for (int i = 0; i < n; i++) {
      buf[len++] = (byte) s.charAt(i);
    }
    return this;
  }

  public JsonBytes raw(byte[] bytes) {
    return raw(bytes, 0, bytes.length);
  }

  public JsonBytes raw(byte[] bytes, int from, int to) {
    ensure(to - from);
    System.arraycopy(bytes, from, buf, len, to - from);
    len += to - from;
    return this;
  }

  public JsonBytes put(char asciiChar) {
    ensure(1);
    buf[len++] = (byte) asciiChar;
    return this;
  }

  /** Appends {@code v} in decimal, without a String in between (every SSE frame has two). */
  public JsonBytes number(long v) {
    if (v < 0) {
      if (v == Long.MIN_VALUE) {
        return ascii(Long.toString(v));
      }
      put('-');
      v = -v;
    }
    int digits = 1;
    for (long x = v; x >= 10; x /= 10) {
      digits++;
    }
    ensure(digits);
    for (int i = len + digits - 1; i >= len; i--) {
      buf[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    len += digits;
    return this;
  }

  /** Appends {@code s} as a quoted JSON string in UTF-8. Unpaired surrogates become '?', as String.getBytes does. */
  public JsonBytes string(String s) {
    int n = s.length();
    // Room for 1 byte per char (and the quotes): the usual ASCII text is written without another
    // check; a char that takes more (an escape: up to 6 bytes, UTF-8: up to 3, or 4 for a pair)
    // first makes sure that room stays for the rest (so only text that needs more grows the buffer).
    ensure(n + 2);
    byte[] b = buf;
    int p = len;
    b[p++] = '"';
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80 && c >= 0x20 && c != '"' && c != '\\') {
        b[p++] = (byte) c;
        continue;
      }
      if (p + 6 + (n - i) + 1 > b.length) {
        len = p;
        ensure(6 + (n - i) + 1);
        b = buf;
      }
      if (c < 0x80) {
        b[p++] = '\\';
        switch (c) {
          case '"' -> b[p++] = '"';
          case '\\' -> b[p++] = '\\';
          case '\n' -> b[p++] = 'n';
          case '\r' -> b[p++] = 'r';
          case '\t' -> b[p++] = 't';
          case '\b' -> b[p++] = 'b';
          case '\f' -> b[p++] = 'f';
          default -> {
            controlEscape = true;
            b[p++] = 'u';
            b[p++] = '0';
            b[p++] = '0';
            b[p++] = HEX[c >> 4];
            b[p++] = HEX[c & 0xf];
          }
        }
      } else if (c < 0x800) {
        b[p++] = (byte) (0xc0 | (c >> 6));
        b[p++] = (byte) (0x80 | (c & 0x3f));
      } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, s.charAt(++i));
        b[p++] = (byte) (0xf0 | (cp >> 18));
        b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
        b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
        b[p++] = (byte) (0x80 | (cp & 0x3f));
      } else if (Character.isSurrogate(c)) {
        b[p++] = '?';
      } else {
        b[p++] = (byte) (0xe0 | (c >> 12));
        b[p++] = (byte) (0x80 | ((c >> 6) & 0x3f));
        b[p++] = (byte) (0x80 | (c & 0x3f));
      }
    }
    b[p++] = '"';
    len = p;
    return this;
  }

  private void ensure(int extra) {
    if (len + extra > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
    }
  }
}
