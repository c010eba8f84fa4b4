package dev.cairn.nostr;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one event object in a single streaming pass and checks its structure (field presence,
 * types, hex spellings, ranges). It neither hashes nor checks the signature: see {@link EventId}
 * and the sig package. Unknown fields are ignored; duplicate fields are refused because a relay and
 * a client could otherwise read different values from the same bytes.
 */
public final class EventParser {
  private static final int ID = 1;
  private static final int PUBKEY = 1 << 1;
  private static final int CREATED_AT = 1 << 2;
  private static final int KIND = 1 << 3;
  private static final int TAGS = 1 << 4;
  private static final int CONTENT = 1 << 5;
  private static final int SIG = 1 << 6;
  private static final int ALL = (1 << 7) - 1;
  private static final String[] NAMES = {"id", "pubkey", "created_at", "kind", "tags", "content", "sig"};

  private EventParser() {}

  /** Parses a whole document that must be exactly one event object. */
  public static NostrEvent parse(String json) throws InvalidMessageException {
    try {
      return parseDocument(JsonInput.textParser(json, "event"));
    } catch (IOException e) {
      throw JsonInput.notJson("event");
    }
  }

  /** Parses a whole UTF-8 document (no byte order mark, see {@link JsonInput#utf8Parser}) that must be exactly one event object. */
  public static NostrEvent parse(byte[] json) throws InvalidMessageException {
    try {
      return parseDocument(JsonInput.utf8Parser(json, "event"));
    } catch (IOException e) {
      throw JsonInput.notJson("event");
    }
  }

  /**
   * The {@code content} of a stored event's JSON ("" when it has none), skipping every other member
   * without building it: the search indexer reads only this from each event it indexes.
   */
  public static String content(byte[] json) throws InvalidMessageException {
    try (JsonParser p = JsonInput.utf8Parser(json, "event")) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new InvalidMessageException("invalid: event must be a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if ("content".equals(name) && value == JsonToken.VALUE_STRING) {
          return p.getText();
        }
        p.skipChildren();
      }
      return "";
    } catch (IOException e) {
      throw JsonInput.notJson("event");
    }
  }

  /**
   * The {@code tags} of a stored event's JSON (empty when it has none), skipping every other member
   * without building it: a write that removes an event reads only these to drop its tag-index entries.
   */
  public static List<List<String>> tags(byte[] json) throws InvalidMessageException {
    try (JsonParser p = JsonInput.utf8Parser(json, "event")) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new InvalidMessageException("invalid: event must be a JSON object");
      }
      JsonStreamContext object = p.getParsingContext();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if ("tags".equals(name)) {
          return tags(p, value, object, null);
        }
        p.skipChildren();
      }
      return List.of();
    } catch (IOException e) {
      throw JsonInput.notJson("event");
    }
  }

  private static NostrEvent parseDocument(JsonParser parser) throws InvalidMessageException {
    try (JsonParser p = parser) {
      NostrEvent event;
      try {
        JsonToken t = p.nextToken();
        if (t == null) {
          throw JsonInput.notJson("event");
        }
        if (t != JsonToken.START_OBJECT) {
          throw new InvalidMessageException("invalid: event must be a JSON object");
        }
        event = parse(p);
      } catch (InvalidMessageException e) {
        if (!JsonInput.restIsValid(p)) {
          throw JsonInput.notJson("event");
        }
        throw e;
      }
      if (p.nextToken() != null) {
        throw JsonInput.notJson("event");
      }
      return event;
    } catch (IOException e) {
      throw JsonInput.notJson("event");
    }
  }

  /**
   * Parses the event object {@code p} is positioned on (current token START_OBJECT). On return the
   * current token is the object's END_OBJECT. On a structural error the exception carries the
   * event's id when the object has a well-formed {@code id}, even one placed after the fault.
   *
   * @throws IOException on malformed JSON (the caller reports the whole frame as not JSON)
   */
  public static NostrEvent parse(JsonParser p) throws InvalidMessageException, IOException {
    JsonStreamContext object = p.getParsingContext();
    int seen = 0;
    String id = null;
    String pubkey = null;
    long createdAt = 0;
    int kind = 0;
    List<List<String>> tags = null;
    String content = null;
    String sig = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      int field = field(p.currentName());
      JsonToken v = p.nextToken();
      if (field == 0) {
        p.skipChildren();
        continue;
      }
      if ((seen & field) != 0) {
        throw fail(p, object, id, "invalid: duplicate field \"" + p.currentName() + "\"");
      }
      seen |= field;
      switch (field) {
        case ID -> {
          id = JsonInput.lowerHex(p, v, 64);
          if (id == null) {
            throw fail(p, object, null, "invalid: id must be 64 lowercase hex characters");
          }
        }
        case PUBKEY -> {
          pubkey = JsonInput.lowerHex(p, v, 64);
          if (pubkey == null) {
            throw fail(p, object, id, "invalid: pubkey must be 64 lowercase hex characters");
          }
        }
        case SIG -> {
          sig = JsonInput.lowerHex(p, v, 128);
          if (sig == null) {
            throw fail(p, object, id, "invalid: sig must be 128 lowercase hex characters");
          }
        }
        case CREATED_AT -> {
          // Only an integer literal: 1.5, 1e3 and "123" are refused, not coerced.
          if (v != JsonToken.VALUE_NUMBER_INT
              || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
              || (createdAt = p.getLongValue()) < 0) {
            throw fail(p, object, id, "invalid: created_at must be an integer");
          }
        }
        case KIND -> {
          if (v != JsonToken.VALUE_NUMBER_INT
              || p.getNumberType() != JsonParser.NumberType.INT
              || (kind = p.getIntValue()) < 0
              || kind > 65535) {
            throw fail(p, object, id, "invalid: kind must be an integer between 0 and 65535");
          }
        }
        case TAGS -> {
          tags = tags(p, v, object, id);
        }
        case CONTENT -> {
          if (v != JsonToken.VALUE_STRING) {
            throw fail(p, object, id, "invalid: content must be a string");
          }
          content = p.getText();
          if (JsonStrings.unpairedSurrogate(content) >= 0) {
            throw fail(p, object, id, "invalid: content contains an unpaired UTF-16 surrogate");
          }
        }
        default -> throw new IllegalStateException();
      }
    }
    // Jackson guarantees the loop ends on END_OBJECT (anything else is a syntax error).
    if (seen != ALL) {
      int missing = Integer.numberOfTrailingZeros(~seen & ALL);
      throw new InvalidMessageException(
          "invalid: event is missing field \"" + NAMES[missing] + "\"", id, null);
    }
    return NostrEvent.of(id, pubkey, createdAt, kind, tags, content, sig);
  }

  private static int field(String name) {
    return switch (name) {
      case "id" -> ID;
      case "pubkey" -> PUBKEY;
      case "created_at" -> CREATED_AT;
      case "kind" -> KIND;
      case "tags" -> TAGS;
      case "content" -> CONTENT;
      case "sig" -> SIG;
      default -> 0;
    };
  }

  private static List<List<String>> tags(
      JsonParser p, JsonToken v, JsonStreamContext object, String id)
      throws InvalidMessageException, IOException {
    if (v != JsonToken.START_ARRAY) {
      throw fail(p, object, id, "invalid: tags must be an array of arrays of strings");
    }
    List<List<String>> tags = new ArrayList<>();
    List<String> tag = new ArrayList<>();
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t != JsonToken.START_ARRAY) {
        throw fail(p, object, id, "invalid: each tag must be an array of strings");
      }
      tag.clear();
      while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
        if (t != JsonToken.VALUE_STRING) {
          throw fail(p, object, id, "invalid: tag values must be strings");
        }
        String s = p.getText();
        if (JsonStrings.unpairedSurrogate(s) >= 0) {
          throw fail(p, object, id, "invalid: tag contains an unpaired UTF-16 surrogate");
        }
        tag.add(s);
      }
      // One exact-size immutable copy per tag; NostrEvent's own copy then reuses it.
      tags.add(List.copyOf(tag));
    }
    return tags;
  }

  /**
   * Builds the error for a fault inside {@code object}. Without a known id, reads on through the
   * rest of the object for a well-formed {@code id} so the relay can still answer OK false with it.
   */
  private static InvalidMessageException fail(
      JsonParser p, JsonStreamContext object, String id, String message) throws IOException {
    if (id == null) {
      id = scanForId(p, object);
    }
    return new InvalidMessageException(message, id, null);
  }

  private static String scanForId(JsonParser p, JsonStreamContext object) throws IOException {
    if (p.currentToken() == JsonToken.FIELD_NAME && p.getParsingContext() == object) {
      p.nextToken(); // the fault was the field name itself (a duplicate): skip its value
      p.skipChildren();
    }
    // Climb out of whatever nested value the fault was found in.
    while (p.getParsingContext() != object) {
      if (p.nextToken() == null) {
        return null;
      }
    }
    String found = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      boolean isId = "id".equals(p.currentName());
      JsonToken v = p.nextToken();
      if (isId && found == null) {
        found = JsonInput.lowerHex(p, v, 64);
      }
      p.skipChildren();
    }
    return found;
  }
}
