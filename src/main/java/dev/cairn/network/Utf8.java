package dev.cairn.network;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** UTF-8 facts the limits need: strict decoding of wire bytes and byte lengths of strings. */
final class Utf8 {
  private Utf8() {}

  /**
   * The UTF-8 byte length of {@code s}, counted only when the char count alone cannot settle a
   * comparison with {@code limit} (each char is at most 3 bytes).
   */
  static int length(String s, int limit) {
    if (s.length() * 3L <= limit) {
      return s.length();
    }
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch < 0x80) {
        n++;
      } else if (ch < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(ch) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }

  /** Strict decoding: null when the bytes are not valid UTF-8 (RFC 6455 requires text to be). */
  static String decode(byte[] bytes) {
    CharsetDecoder d = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      CharBuffer out = d.decode(ByteBuffer.wrap(bytes));
      return out.toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
