package dev.cairn.nostr;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.cairn.nostr.negentropy.NegentropyHex;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses one WebSocket text frame into a {@link ClientMessage} in a single streaming pass. Every
 * refusal is an {@link InvalidMessageException} whose message can be sent as is, carrying the event
 * id (answer OK false) or subscription id (answer CLOSED) when those could be read. Malformed JSON
 * anywhere in the frame, trailing garbage included, wins over any other fault.
 */
public final class ClientMessageParser {
  private static final int MAX_ECHOED_VERB = 32;

  private ClientMessageParser() {}

  public static ClientMessage parse(String text, int maxSubIdLength, int maxFilters)
      throws InvalidMessageException {
    try {
      return parse(JsonInput.textParser(text, "message"), maxSubIdLength, maxFilters);
    } catch (IOException e) {
      throw JsonInput.notJson("message");
    }
  }

  /**
   * Parses a frame's UTF-8 bytes (already checked to be valid UTF-8 by the transport). A byte order
   * mark or UTF-16/32 text is refused, see {@link JsonInput#utf8Parser}.
   */
  public static ClientMessage parse(byte[] utf8, int maxSubIdLength, int maxFilters)
      throws InvalidMessageException {
    try {
      return parse(JsonInput.utf8Parser(utf8, "message"), maxSubIdLength, maxFilters);
    } catch (IOException e) {
      throw JsonInput.notJson("message");
    }
  }

  private static ClientMessage parse(JsonParser parser, int maxSubIdLength, int maxFilters)
      throws InvalidMessageException {
    try (JsonParser p = parser) {
      ClientMessage message;
      try {
        message = frame(p, maxSubIdLength, maxFilters);
      } catch (InvalidMessageException e) {
        if (!JsonInput.restIsValid(p)) {
          throw JsonInput.notJson("message");
        }
        throw e;
      }
      if (p.nextToken() != null) {
        throw JsonInput.notJson("message");
      }
      return message;
    } catch (IOException e) {
      throw JsonInput.notJson("message");
    }
  }

  private static ClientMessage frame(JsonParser p, int maxSubIdLength, int maxFilters)
      throws InvalidMessageException, IOException {
    JsonToken t = p.nextToken();
    if (t == null) {
      throw JsonInput.notJson("message");
    }
    if (t != JsonToken.START_ARRAY) {
      throw new InvalidMessageException("invalid: message must be a JSON array");
    }
    t = p.nextToken();
    if (t == JsonToken.END_ARRAY) {
      throw new InvalidMessageException("invalid: message must not be an empty array");
    }
    if (t != JsonToken.VALUE_STRING) {
      throw new InvalidMessageException("invalid: message type must be a string");
    }
    String verb = p.getText();
    switch (verb) {
      case "EVENT":
        return new ClientMessage.EventMessage(event(p, verb));
      case "REQ": {
        String subId = subId(p, verb, maxSubIdLength);
        return new ClientMessage.ReqMessage(subId, filters(p, verb, subId, maxFilters));
      }
      case "COUNT": {
        String subId = subId(p, verb, maxSubIdLength);
        return new ClientMessage.CountMessage(subId, filters(p, verb, subId, maxFilters));
      }
      case "CLOSE": {
        String subId = subId(p, verb, maxSubIdLength);
        if (p.nextToken() != JsonToken.END_ARRAY) {
          throw new InvalidMessageException(
              "invalid: CLOSE must contain exactly one subscription id", null, subId);
        }
        return new ClientMessage.CloseMessage(subId);
      }
      case "AUTH":
        return new ClientMessage.AuthMessage(event(p, verb));
      case "NEG-OPEN":
        return negOpen(p, verb, maxSubIdLength);
      case "NEG-MSG": {
        String subId = negSubId(p, verb, maxSubIdLength);
        byte[] message = negMessage(p, verb, subId);
        end(p, verb + " must contain exactly a subscription id and a message", subId);
        return new ClientMessage.NegMsgMessage(subId, message);
      }
      case "NEG-CLOSE": {
        String subId = negSubId(p, verb, maxSubIdLength);
        end(p, "NEG-CLOSE must contain exactly one subscription id", subId);
        return new ClientMessage.NegCloseMessage(subId);
      }
      default:
        throw new InvalidMessageException(
            "invalid: unknown message type \"" + truncate(verb) + "\"");
    }
  }

  /** NIP-77: exactly one filter object, then the initial message. */
  private static ClientMessage negOpen(JsonParser p, String verb, int maxSubIdLength)
      throws InvalidMessageException, IOException {
    String subId = negSubId(p, verb, maxSubIdLength);
    if (p.nextToken() != JsonToken.START_OBJECT) {
      throw new InvalidMessageException("invalid: NEG-OPEN must contain one filter object", null, null)
          .forNegentropy(subId);
    }
    Filter filter;
    try {
      filter = FilterParser.parse(p);
    } catch (InvalidMessageException e) {
      throw e.forNegentropy(subId);
    }
    byte[] message = negMessage(p, verb, subId);
    end(p, "NEG-OPEN must contain exactly a subscription id, one filter and a message", subId);
    return new ClientMessage.NegOpenMessage(subId, filter, message);
  }

  private static String negSubId(JsonParser p, String verb, int maxLength)
      throws InvalidMessageException, IOException {
    try {
      return subId(p, verb, maxLength);
    } catch (InvalidMessageException e) {
      // without a usable id there is no session to answer NEG-ERR on: NOTICE
      throw e.subId() == null ? e : e.forNegentropy(e.subId());
    }
  }

  /** The hex-encoded negentropy message, decoded (the protocol reads binary). */
  private static byte[] negMessage(JsonParser p, String verb, String subId)
      throws InvalidMessageException, IOException {
    if (p.nextToken() != JsonToken.VALUE_STRING) {
      throw new InvalidMessageException("invalid: " + verb + " must contain a hex message string", null, null)
          .forNegentropy(subId);
    }
    String hex = p.getText();
    if (hex.isEmpty()) {
      throw new InvalidMessageException("invalid: empty negentropy message", null, null).forNegentropy(subId);
    }
    try {
      return NegentropyHex.decode(hex);
    } catch (IllegalArgumentException e) {
      throw new InvalidMessageException("invalid: negentropy message is not hex (" + e.getMessage() + ")", null,
          null).forNegentropy(subId);
    }
  }

  private static void end(JsonParser p, String what, String subId) throws InvalidMessageException, IOException {
    if (p.nextToken() != JsonToken.END_ARRAY) {
      throw new InvalidMessageException("invalid: " + what, null, null).forNegentropy(subId);
    }
  }

  private static NostrEvent event(JsonParser p, String verb)
      throws InvalidMessageException, IOException {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      throw new InvalidMessageException("invalid: " + verb + " must contain an event object");
    }
    NostrEvent event = EventParser.parse(p);
    if (p.nextToken() != JsonToken.END_ARRAY) {
      throw new InvalidMessageException(
          "invalid: " + verb + " must contain exactly one event", event.id(), null);
    }
    return event;
  }

  private static String subId(JsonParser p, String verb, int maxLength)
      throws InvalidMessageException, IOException {
    JsonToken t = p.nextToken();
    if (t == JsonToken.END_ARRAY) {
      throw new InvalidMessageException("invalid: " + verb + " must have a subscription id");
    }
    if (t != JsonToken.VALUE_STRING) {
      throw new InvalidMessageException("invalid: subscription id must be a string");
    }
    String subId = p.getText();
    if (subId.isEmpty()) {
      throw new InvalidMessageException("invalid: subscription id must not be empty", null, subId);
    }
    if (subId.length() > maxLength) {
      throw new InvalidMessageException(
          "invalid: subscription id longer than " + maxLength + " characters", null, subId);
    }
    return subId;
  }

  private static List<Filter> filters(JsonParser p, String verb, String subId, int maxFilters)
      throws InvalidMessageException, IOException {
    List<Filter> filters = new ArrayList<>(2);
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t != JsonToken.START_OBJECT) {
        throw new InvalidMessageException("invalid: filter must be a JSON object", null, subId);
      }
      // Refuse before parsing the extra filter: no work spent on a frame that is refused anyway.
      if (filters.size() >= maxFilters) {
        throw new InvalidMessageException(
            "invalid: too many filters (max " + maxFilters + ")", null, subId);
      }
      try {
        filters.add(FilterParser.parse(p));
      } catch (InvalidMessageException e) {
        throw e.withSubId(subId);
      }
    }
    if (filters.isEmpty()) {
      throw new InvalidMessageException(
          "invalid: " + verb + " must contain at least one filter", null, subId);
    }
    return filters;
  }

  // The verb is client-chosen: echo only a bounded prefix of it.
  private static String truncate(String verb) {
    return verb.length() <= MAX_ECHOED_VERB ? verb : verb.substring(0, MAX_ECHOED_VERB) + "...";
  }
}
