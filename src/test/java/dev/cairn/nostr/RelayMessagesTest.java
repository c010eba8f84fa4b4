package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RelayMessagesTest {
  private static String text(byte[] utf8) {
    return new String(utf8, java.nio.charset.StandardCharsets.UTF_8);
  }

  private static final String NASTY = "q\"b\\n\nt\t\u0001\u007f é😀";

  /** Flattens a frame into its scalar tokens (as text), checking it is one valid JSON array. */
  private static List<String> tokens(byte[] frame) throws Exception {
    List<String> out = new ArrayList<>();
    try (JsonParser p = new JsonFactory().createParser(frame)) {
      assertEquals(JsonToken.START_ARRAY, p.nextToken());
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        if (t.isScalarValue() || t == JsonToken.FIELD_NAME) {
          out.add(p.getText());
        }
      }
    }
    return out;
  }

  @Test
  void framesAreValidJsonAndRoundTripTheirStrings() throws Exception {
    assertEquals(List.of("OK", "abc", "true", NASTY), tokens(RelayMessages.ok("abc", true, NASTY)));
    assertEquals(List.of("OK", "abc", "false", "invalid: x"),
        tokens(RelayMessages.ok("abc", false, "invalid: x")));
    assertEquals(List.of("EOSE", NASTY), tokens(RelayMessages.eose(NASTY)));
    assertEquals(List.of("CLOSED", NASTY, NASTY), tokens(RelayMessages.closed(NASTY, NASTY)));
    assertEquals(List.of("NOTICE", NASTY), tokens(RelayMessages.notice(NASTY)));
    assertEquals(List.of("AUTH", NASTY), tokens(RelayMessages.auth(NASTY)));
    assertEquals(List.of("COUNT", NASTY, "count", "9007199254740993"),
        tokens(RelayMessages.count(NASTY, 9007199254740993L)));
    assertEquals("[\"COUNT\",\"s\",{\"count\":0}]", text(RelayMessages.count("s", 0)));
    assertEquals("[\"EOSE\",\"s\"]", text(RelayMessages.eose("s")));
  }

  @Test
  void eventFrameEmbedsTheStoredJsonVerbatim() throws Exception {
    NostrEvent e = EventParser.parse(TestEvents.json("content", "\"a\\u0001\\\"b\""));
    String frame = text(RelayMessages.event(NASTY, e.json()));
    assertEquals("[\"EVENT\"," + JsonStrings.quote(NASTY) + "," + e.jsonText() + "]", frame);
    // the relay sends the prefix, the shared event bytes and "]": the same frame
    assertEquals(frame, text(RelayMessages.eventPrefix(NASTY)) + e.jsonText() + "]");
    // ... and a client can read the event back out of it unchanged.
    try (JsonParser p = JsonInput.FACTORY.createParser(frame)) {
      assertEquals(JsonToken.START_ARRAY, p.nextToken());
      p.nextToken();
      assertEquals("EVENT", p.getText());
      p.nextToken();
      assertEquals(NASTY, p.getText());
      assertEquals(JsonToken.START_OBJECT, p.nextToken());
      assertEquals(e, EventParser.parse(p));
      assertEquals(JsonToken.END_ARRAY, p.nextToken());
      assertNull(p.nextToken());
    }
  }
}
