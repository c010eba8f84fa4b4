package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/** The invariants the nostr parsers' fuzz tests share. */
final class FuzzSupport {
  private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");

  private FuzzSupport() {}

  /** What a parser did with one input: a value, or the one exception type it may throw. */
  record Outcome(Object value, InvalidMessageException error) {
    boolean ok() {
      return error == null;
    }
  }

  interface Parse {
    Object run() throws InvalidMessageException;
  }

  /** Runs {@code p}; any exception but InvalidMessageException propagates and is a finding. */
  static Outcome outcome(Parse p) {
    try {
      return new Outcome(p.run(), null);
    } catch (InvalidMessageException e) {
      checkRefusal(e);
      return new Outcome(null, e);
    }
  }

  /**
   * A refusal is sendable as is: NIP-01 prefix, and an event id it carries is well formed (the relay
   * answers OK with it). A sub id is echoed as the client wrote it, the empty one included (CLOSED
   * "" answers a REQ ""; the first long run flagged that, and it is meant: ClientMessageParserTest).
   */
  static void checkRefusal(InvalidMessageException e) {
    assertTrue(e.getMessage().startsWith("invalid: "), e.getMessage());
    assertTrue(e.eventId() == null || HEX64.matcher(e.eventId()).matches(), e.eventId());
  }

  /** {@code bytes} as a String when they are well-formed UTF-8 (what the transport lets through), else null. */
  static String strictUtf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /** The byte and the text entry points agree: same value, or the same refusal. */
  static void assertSameOutcome(Outcome fromBytes, Outcome fromText) {
    assertEquals(fromBytes.value(), fromText.value());
    // bytes can be refused for their encoding (a NUL or BOM up front); the text then fails as not JSON
    if (!fromBytes.ok() && !fromBytes.error().getMessage().endsWith("(UTF-16 and UTF-32 are refused)")) {
      assertEquals(fromBytes.error().getMessage(), fromText.error().getMessage());
      assertEquals(fromBytes.error().eventId(), fromText.error().eventId());
      assertEquals(fromBytes.error().subId(), fromText.error().subId());
    }
  }

  /**
   * A parsed event re-serialized by EventJson parses to the same event, from bytes and from text, and
   * its id as computed from the fields verifies through the stored JSON's slices (EventId's fast path)
   * as through the fields.
   */
  static void assertEventRoundTrip(NostrEvent e) throws InvalidMessageException {
    assertEquals(e, EventParser.parse(e.json()));
    assertEquals(e, EventParser.parse(EventJson.toJson(e)));
    String id = EventId.compute(e);
    NostrEvent rehashed = NostrEvent.of(id, e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content(), e.sig());
    assertTrue(EventId.verify(rehashed), "the id of the fields verifies: " + rehashed.jsonText());
    if (e.id().equals(id)) {
      assertTrue(EventId.verify(e), "an event whose id is its fields' id verifies: " + e.jsonText());
    }
  }

  /** A parsed filter's canonical form parses back to the same filter. */
  static void assertFilterRoundTrip(Filter f) throws InvalidMessageException {
    String canonical = FilterJson.canonical(f);
    assertEquals(f, FilterParser.parse(canonical), canonical);
    assertEquals(canonical, FilterJson.canonical(FilterParser.parse(canonical)));
  }
}
