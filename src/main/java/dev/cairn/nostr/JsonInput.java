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
