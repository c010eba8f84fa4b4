package dev.cairn.nostr;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/** Shared streaming-JSON plumbing for the parsers of this package. */
final class JsonInput {
  /**
   * Thread-safe and expensive to build, so shared. Strict JSON (Jackson's defaults: no comments,
   * single quotes, NaN or leading zeros). Field names are canonicalized but not String.intern()ed:
   * clients choose unknown field names freely and must not grow the JVM string table.
   */
  static final JsonFactory FACTORY =
      JsonFactory.builder().disable(JsonFactory.Feature.INTERN_FIELD_NAMES).build();

  private JsonInput() {}

  /**
   * A parser over {@code utf8}, refusing what is not UTF-8 JSON text. Given bytes, Jackson sniffs the
   * first four for a byte order mark or NULs and then reads UTF-16 or UTF-32 (or skips a UTF-8 BOM):
   * bytes that a UTF-8 reader sees as NUL-laden garbage would be accepted as an event, stored and
   * hashed as a text no other client reads from them. RFC 8259 section 8.1 says JSON between systems
   * is UTF-8 without a BOM, so a BOM or a NUL among the first two bytes (every UTF-16/32 form of a
   * JSON text has one there) is refused up front; no valid UTF-8 JSON text starts that way.
   */
  static JsonParser utf8Parser(byte[] utf8, String what) throws InvalidMessageException, IOException {
    if (notUtf8(utf8)) {
      throw notUtf8Error(what);
    }
    return FACTORY.createParser(utf8);
  }

  /** The same refusal for text that starts with U+FEFF, so a String and its UTF-8 bytes parse alike. */
  static JsonParser textParser(String text, String what) throws InvalidMessageException, IOException {
    if (!text.isEmpty() && text.charAt(0) == '\uFEFF') {
      throw notUtf8Error(what);
    }
    return FACTORY.createParser(text);
  }

  private static boolean notUtf8(byte[] b) {
    int n = b.length;
    if (n >= 1 && b[0] == 0 || n >= 2 && b[1] == 0) {
      return true; // UTF-16 or UTF-32 (Jackson's own sniffing looks for exactly these NULs)
    }
    if (n >= 2 && (b[0] == (byte) 0xFE && b[1] == (byte) 0xFF || b[0] == (byte) 0xFF && b[1] == (byte) 0xFE)) {
      return true; // UTF-16 BOM (also the start of a little-endian UTF-32 one)
    }
    return n >= 3 && b[0] == (byte) 0xEF && b[1] == (byte) 0xBB && b[2] == (byte) 0xBF; // UTF-8 BOM
  }

  static InvalidMessageException notUtf8Error(String what) {
    return new InvalidMessageException(
        "invalid: " + what + " must be UTF-8 JSON without a byte order mark (UTF-16 and UTF-32 are refused)");
  }

  static InvalidMessageException notJson(String what) {
    return new InvalidMessageException("invalid: " + what + " is not valid JSON");
  }

  /**
   * After a semantic error mid-document: true when the rest of the input is valid JSON and holds
   * no second root value. Lets a syntax error anywhere win over a semantic one found earlier, so
   * malformed frames are always reported as such.
   */
  static boolean restIsValid(JsonParser p) {
    try {
      // The root value is complete once a token leaves the parser at root level.
      while (p.currentToken() == null || !p.getParsingContext().inRoot()) {
        if (p.nextToken() == null) {
          return false;
        }
      }
      return p.nextToken() == null;
    } catch (IOException e) {
      return false;
    }
  }

  /** Reads the current VALUE_STRING if it is exactly {@code length} lowercase hex chars, else null. */
  static String lowerHex(JsonParser p, JsonToken t, int length) throws IOException {
    if (t != JsonToken.VALUE_STRING || p.getTextLength() != length) {
      return null;
    }
    String s = p.getText();
    return Hex.isLowerHex(s, length) ? s : null;
  }
}
