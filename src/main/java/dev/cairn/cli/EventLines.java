package dev.cairn.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.cairn.nostr.EventParser;
import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.NostrEvent;
import java.io.IOException;
import java.util.Arrays;

/**
 * One JSONL line as an event. Accepted, as strfry's {@code export} and common dumps write them:
 * <ul>
 *   <li>an event object {@code {"id":...}} (strfry export, cairn export, nak);</li>
 *   <li>{@code ["EVENT",{...}]}, a client's EVENT message (a recorded publish session);</li>
 *   <li>{@code ["EVENT","<sub>",{...}]}, a relay's EVENT message (a recorded REQ answer).</li>
 * </ul>
 * The event is read by the relay's own parser ({@link EventParser}): same checks, same messages.
 * A UTF-8 byte order mark before a line is ignored. Thread-safe.
 */
final class EventLines {
  static final String NOT_JSON = "invalid: line is not valid JSON";
  static final String NOT_EVENT = "invalid: line is not an event (an event object, [\"EVENT\",{...}]"
      + " or [\"EVENT\",\"<sub>\",{...}])";

  private static final JsonFactory FACTORY =
      JsonFactory.builder().disable(JsonFactory.Feature.INTERN_FIELD_NAMES).build();

  private EventLines() {}

  /** The line's event; {@link InvalidMessageException} with the {@code invalid: ...} reason otherwise. */
  static NostrEvent parse(byte[] line) throws InvalidMessageException {
    int from = 0;
    if (line.length >= 3 && (line[0] & 0xff) == 0xEF && (line[1] & 0xff) == 0xBB && (line[2] & 0xff) == 0xBF) {
      from = 3;
    }
    int i = from;
    while (i < line.length && (line[i] == ' ' || line[i] == '\t')) {
      i++;
    }
    if (i < line.length && line[i] == '[') {
      return parseArray(line, from);
    }
    try {
      return EventParser.parse(from == 0 ? line : Arrays.copyOfRange(line, from, line.length));
    } catch (InvalidMessageException e) {
      String m = e.getMessage();
      if (m.equals("invalid: event is not valid JSON")) {
        throw new InvalidMessageException(NOT_JSON);
      }
      if (m.equals("invalid: event must be a JSON object")) {
        throw new InvalidMessageException(NOT_EVENT);
      }
      throw e;
    }
  }

  private static NostrEvent parseArray(byte[] line, int from) throws InvalidMessageException {
    try (JsonParser p = FACTORY.createParser(line, from, line.length - from)) {
      p.nextToken(); // START_ARRAY
      if (p.nextToken() != JsonToken.VALUE_STRING || !"EVENT".equals(p.getText())) {
        throw notEvent(p);
      }
      JsonToken t = p.nextToken();
      if (t == JsonToken.VALUE_STRING) {
        t = p.nextToken(); // a relay's ["EVENT", sub, {...}]
      }
      if (t != JsonToken.START_OBJECT) {
        throw notEvent(p);
      }
      NostrEvent e;
      try {
        e = EventParser.parse(p);
      } catch (InvalidMessageException bad) {
        restOrNotJson(p);
        throw bad;
      }
      if (p.nextToken() != JsonToken.END_ARRAY) {
        throw notEvent(p);
      }
      if (p.nextToken() != null) {
        throw new InvalidMessageException(NOT_JSON);
      }
      return e;
    } catch (IOException e) {
      throw new InvalidMessageException(NOT_JSON);
    }
  }

  /** A line that is JSON but not an event message: unless the rest is not JSON at all. */
  private static InvalidMessageException notEvent(JsonParser p) {
    try {
      restOrNotJson(p);
    } catch (InvalidMessageException notJson) {
      return notJson;
    }
    return new InvalidMessageException(NOT_EVENT);
  }

  private static void restOrNotJson(JsonParser p) throws InvalidMessageException {
    try {
      while (p.nextToken() != null) {
        // read to the end: a syntax error anywhere makes the line "not JSON"
      }
    } catch (IOException e) {
      throw new InvalidMessageException(NOT_JSON);
    }
  }
}
