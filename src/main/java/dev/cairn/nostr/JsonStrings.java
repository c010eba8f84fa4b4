package dev.cairn.nostr;

/**
 * The one place outgoing JSON strings are quoted. Standard JSON escaping: the two-character escapes
 * for {@code " \ \n \r \t \b \f}, other C0 controls as {@code &#92;u00XX}, everything else verbatim
 * (DEL, non-ASCII and emoji included) so the text round-trips exactly.
 */
public final class JsonStrings {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private JsonStrings() {}

  /** Appends {@code s} as a quoted JSON string. */
  public static StringBuilder quote(StringBuilder sb, String s) {
    sb.append('"');
    int len = s.length();
    int start = 0;
    for (int i = 0; i < len; i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c != '"' && c != '\\') {
        continue;
      }
      // Copy the clean run in one call; most strings have no escapes at all.
      sb.append(s, start, i);
      start = i + 1;
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        default -> sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    // Whole-String append is a bulk copy; the (CharSequence, int, int) overload copies char by char.
    if (start == 0) {
      sb.append(s);
    } else {
      sb.append(s, start, len);
    }
    return sb.append('"');
  }

  /** {@code s} as a quoted JSON string. */
  public static String quote(String s) {
    return quote(new StringBuilder(s.length() + 8), s).toString();
  }

  /**
   * Index of the first UTF-16 surrogate in {@code s} that is not half of a valid pair, or -1.
   * Such strings cannot be encoded as UTF-8, so they would hash and store differently than sent.
   */
  public static int unpairedSurrogate(String s) {
    int len = s.length();
    for (int i = 0; i < len; i++) {
      char c = s.charAt(i);
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      }
    }
    return -1;
  }
}
