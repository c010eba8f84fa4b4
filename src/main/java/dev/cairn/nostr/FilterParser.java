package dev.cairn.nostr;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads one NIP-01 filter object in a single streaming pass. Unknown fields (including {@code #}
 * keys that are not a single letter) are ignored, as NIP-01 asks. A JSON {@code null} value counts
 * as the field being absent: some clients send it, and it has no other sensible reading.
 */
public final class FilterParser {
  private FilterParser() {}

  /** Parses a whole document that must be exactly one filter object. */
  public static Filter parse(String json) throws InvalidMessageException {
    try (JsonParser p = JsonInput.textParser(json, "filter")) {
      Filter filter;
      try {
        JsonToken t = p.nextToken();
        if (t == null) {
          throw JsonInput.notJson("filter");
        }
        if (t != JsonToken.START_OBJECT) {
          throw new InvalidMessageException("invalid: filter must be a JSON object");
        }
        filter = parse(p);
      } catch (InvalidMessageException e) {
        if (!JsonInput.restIsValid(p)) {
          throw JsonInput.notJson("filter");
        }
        throw e;
      }
      if (p.nextToken() != null) {
        throw JsonInput.notJson("filter");
      }
      return filter;
    } catch (IOException e) {
      throw JsonInput.notJson("filter");
    }
  }

  /**
   * Parses the filter object {@code p} is positioned on (current token START_OBJECT); on return the
   * current token is its END_OBJECT.
   *
   * @throws IOException on malformed JSON
   */
  public static Filter parse(JsonParser p) throws InvalidMessageException, IOException {
    List<String> ids = null;
    List<String> authors = null;
    List<Integer> kinds = null;
    Map<Character, Set<String>> tags = null;
    Long since = null;
    Long until = null;
    Integer limit = null;
    String search = null;
    int seen = 0;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      int bit = switch (name) {
        case "ids" -> 1;
        case "authors" -> 2;
        case "kinds" -> 4;
        case "since" -> 8;
        case "until" -> 16;
        case "limit" -> 32;
        case "search" -> 64;
        default -> 0;
      };
      if (bit == 0) {
        char letter = tagLetter(name);
        if (letter == 0) {
          p.skipChildren(); // unknown field
          continue;
        }
        if (tags == null) {
          tags = new HashMap<>(4);
        } else if (tags.containsKey(letter)) {
          throw duplicate(name);
        }
        List<String> values = strings(p, v, name);
        if (values != null) {
          tags.put(letter, Set.copyOf(values));
        }
        continue;
      }
      if ((seen & bit) != 0) {
        throw duplicate(name);
      }
      seen |= bit;
      if (v == JsonToken.VALUE_NULL) {
        continue;
      }
      switch (bit) {
        case 1 -> ids = hexes(p, v, "ids");
        case 2 -> authors = hexes(p, v, "authors");
        case 4 -> kinds = kinds(p, v);
        case 8 -> since = timestamp(p, v, "since");
        case 16 -> until = timestamp(p, v, "until");
        case 32 -> limit = limit(p, v);
        case 64 -> {
          if (v != JsonToken.VALUE_STRING) {
            throw new InvalidMessageException("invalid: filter search must be a string");
          }
          search = p.getText();
        }
        default -> throw new IllegalStateException();
      }
    }
    return new Filter(
        ids == null ? null : Set.copyOf(ids),
        authors == null ? null : Set.copyOf(authors),
        kinds == null ? null : Set.copyOf(kinds),
        tags,
        since,
        until,
        limit,
        search);
  }

  /** The letter of a {@code #x} key, or 0 when the key is not {@code #} plus one ASCII letter. */
  private static char tagLetter(String name) {
    if (name.length() != 2 || name.charAt(0) != '#') {
      return 0;
    }
    char c = name.charAt(1);
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? c : 0;
  }

  private static InvalidMessageException duplicate(String name) {
    return new InvalidMessageException("invalid: duplicate filter field \"" + name + "\"");
  }

  private static List<String> hexes(JsonParser p, JsonToken v, String name)
      throws InvalidMessageException, IOException {
    if (v != JsonToken.START_ARRAY) {
      throw new InvalidMessageException("invalid: filter " + name + " must be an array");
    }
    List<String> out = new ArrayList<>();
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      String s = JsonInput.lowerHex(p, t, 64);
      if (s == null) {
        throw new InvalidMessageException(
            "invalid: filter " + name + " must be 64 lowercase hex characters");
      }
      out.add(s);
    }
    return out;
  }

  private static List<String> strings(JsonParser p, JsonToken v, String name)
      throws InvalidMessageException, IOException {
    if (v == JsonToken.VALUE_NULL) {
      return null;
    }
    if (v != JsonToken.START_ARRAY) {
      throw new InvalidMessageException("invalid: filter " + name + " must be an array of strings");
    }
    List<String> out = new ArrayList<>();
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t != JsonToken.VALUE_STRING) {
        throw new InvalidMessageException(
            "invalid: filter " + name + " must be an array of strings");
      }
      out.add(p.getText());
    }
    return out;
  }

  private static List<Integer> kinds(JsonParser p, JsonToken v)
      throws InvalidMessageException, IOException {
    if (v != JsonToken.START_ARRAY) {
      throw new InvalidMessageException("invalid: filter kinds must be an array");
    }
    List<Integer> out = new ArrayList<>();
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      int k;
      if (t != JsonToken.VALUE_NUMBER_INT
          || p.getNumberType() != JsonParser.NumberType.INT
          || (k = p.getIntValue()) < 0
          || k > 65535) {
        throw new InvalidMessageException(
            "invalid: filter kinds must be integers between 0 and 65535");
      }
      out.add(k);
    }
    return out;
  }

  private static Long timestamp(JsonParser p, JsonToken v, String name)
      throws InvalidMessageException, IOException {
    long n;
    if (v != JsonToken.VALUE_NUMBER_INT
        || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
        || (n = p.getLongValue()) < 0) {
      throw new InvalidMessageException(
          "invalid: filter " + name + " must be a non-negative integer");
    }
    return n;
  }

  private static Integer limit(JsonParser p, JsonToken v)
      throws InvalidMessageException, IOException {
    if (v == JsonToken.VALUE_NUMBER_INT) {
      if (p.getNumberType() == JsonParser.NumberType.INT) {
        int n = p.getIntValue();
        if (n >= 0) {
          return n;
        }
      } else if (p.getBigIntegerValue().signum() > 0) {
        // A huge limit just means "as many as allowed"; the relay caps it at max_limit anyway.
        return Integer.MAX_VALUE;
      }
    }
    throw new InvalidMessageException("invalid: filter limit must be a non-negative integer");
  }
}
