package dev.cairn.nostr;

import static dev.cairn.nostr.TestEvents.ID;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClientMessageParserTest {
  private static final String EVENT = TestEvents.json();

  private static ClientMessage parse(String text) throws InvalidMessageException {
    return ClientMessageParser.parse(text, 64, 3);
  }

  private static InvalidMessageException rejects(String text) {
    return assertThrows(InvalidMessageException.class, () -> parse(text));
  }

  private static void rejects(String text, String message) {
    assertEquals(message, rejects(text).getMessage());
  }

  @Test
  void parsesEveryVerb() throws Exception {
    var event = assertInstanceOf(ClientMessage.EventMessage.class, parse("[\"EVENT\"," + EVENT + "]"));
    assertEquals(EventParser.parse(EVENT), event.event());

    var auth = assertInstanceOf(ClientMessage.AuthMessage.class, parse(" [\"AUTH\", " + EVENT + "] "));
    assertEquals(ID, auth.event().id());

    var req = assertInstanceOf(ClientMessage.ReqMessage.class,
        parse("[\"REQ\",\"sub 1\",{\"kinds\":[1]},{\"#t\":[\"x\"],\"limit\":2}]"));
    assertEquals("sub 1", req.subId());
    assertEquals(2, req.filters().size());
    assertEquals(Set.of(1), req.filters().get(0).kinds());
    assertEquals(2, req.filters().get(1).limit());

    var count = assertInstanceOf(ClientMessage.CountMessage.class, parse("[\"COUNT\",\"c\",{}]"));
    assertEquals("c", count.subId());
    assertEquals(1, count.filters().size());

    var close = assertInstanceOf(ClientMessage.CloseMessage.class, parse("[\"CLOSE\",\"sub 1\"]"));
    assertEquals("sub 1", close.subId());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "nope", "[", "[\"REQ\",\"s\",{}", "{\"a\":1", "[\"EVENT\",{]",
      "[\"CLOSE\",\"s\"]x", "[\"CLOSE\",\"s\"][]", "[\"CLOSE\",\"s\"],", "[\"CLOSE\" \"s\"]",
      "[\"FOO\"]]", "[1,]"})
  void garbageIsNotJson(String text) {
    InvalidMessageException e = rejects(text);
    assertEquals("invalid: message is not valid JSON", e.getMessage());
    assertNull(e.subId());
    assertNull(e.eventId());
  }

  @Test
  void rejectsBadFrames() {
    rejects("{}", "invalid: message must be a JSON array");
    rejects("\"EVENT\"", "invalid: message must be a JSON array");
    rejects("[]", "invalid: message must not be an empty array");
    rejects("[1]", "invalid: message type must be a string");
    rejects("[[\"EVENT\"]]", "invalid: message type must be a string");
    rejects("[\"FOO\",1]", "invalid: unknown message type \"FOO\"");
    rejects("[\"event\"," + EVENT + "]", "invalid: unknown message type \"event\"");
    rejects("[\"" + "X".repeat(100) + "\"]", "invalid: unknown message type \"" + "X".repeat(32) + "...\"");
    rejects("[\"EVENT\"]", "invalid: EVENT must contain an event object");
    rejects("[\"EVENT\",\"x\"]", "invalid: EVENT must contain an event object");
    rejects("[\"AUTH\",[]]", "invalid: AUTH must contain an event object");
    rejects("[\"CLOSE\"]", "invalid: CLOSE must have a subscription id");
    rejects("[\"CLOSE\",1]", "invalid: subscription id must be a string");
    rejects("[\"REQ\"]", "invalid: REQ must have a subscription id");
  }

  @Test
  void eventErrorsCarryTheEventId() {
    InvalidMessageException e = rejects("[\"EVENT\"," + EVENT + "," + EVENT + "]");
    assertEquals("invalid: EVENT must contain exactly one event", e.getMessage());
    assertEquals(ID, e.eventId());

    e = rejects("[\"EVENT\"," + TestEvents.json("created_at", "1e3") + "]");
    assertEquals("invalid: created_at must be an integer", e.getMessage());
    assertEquals(ID, e.eventId());

    e = rejects("[\"EVENT\",{\"kind\":-5,\"id\":\"" + ID + "\"}]");
    assertEquals("invalid: kind must be an integer between 0 and 65535", e.getMessage());
    assertEquals(ID, e.eventId());

    e = rejects("[\"EVENT\"," + TestEvents.json("id", "\"" + ID.toUpperCase() + "\"") + "]");
    assertEquals("invalid: id must be 64 lowercase hex characters", e.getMessage());
    assertNull(e.eventId());

    // Malformed JSON after an invalid event: reported as not JSON, without an id.
    e = rejects("[\"EVENT\"," + TestEvents.json("kind", "-1") + "");
    assertEquals("invalid: message is not valid JSON", e.getMessage());
    assertNull(e.eventId());
  }

  @Test
  void subscriptionIdLimits() throws Exception {
    assertEquals("x".repeat(64),
        ((ClientMessage.ReqMessage) parse("[\"REQ\",\"" + "x".repeat(64) + "\",{}]")).subId());
    String tooLong = "x".repeat(65);
    InvalidMessageException e = rejects("[\"REQ\",\"" + tooLong + "\",{}]");
    assertEquals("invalid: subscription id longer than 64 characters", e.getMessage());
    assertEquals(tooLong, e.subId());

    e = rejects("[\"COUNT\",\"\",{}]");
    assertEquals("invalid: subscription id must not be empty", e.getMessage());
    assertEquals("", e.subId());

    e = rejects("[\"REQ\",{},{}]");
    assertEquals("invalid: subscription id must be a string", e.getMessage());
    assertNull(e.subId());

    e = rejects("[\"CLOSE\",\"s\",\"t\"]");
    assertEquals("invalid: CLOSE must contain exactly one subscription id", e.getMessage());
  }

  @Test
  void filterCountAndFilterErrorsCarryTheSubId() throws Exception {
    assertEquals(3, ((ClientMessage.ReqMessage) parse("[\"REQ\",\"s\",{},{},{}]")).filters().size());

    InvalidMessageException e = rejects("[\"REQ\",\"s\",{},{},{},{}]");
    assertEquals("invalid: too many filters (max 3)", e.getMessage());
    assertEquals("s", e.subId());

    e = rejects("[\"COUNT\",\"s\",{},{},{},{\"kinds\":[-1]}]");
    assertEquals("invalid: too many filters (max 3)", e.getMessage());

    e = rejects("[\"REQ\",\"s\"]");
    assertEquals("invalid: REQ must contain at least one filter", e.getMessage());
    assertEquals("s", e.subId());

    e = rejects("[\"REQ\",\"s\",{},1]");
    assertEquals("invalid: filter must be a JSON object", e.getMessage());
    assertEquals("s", e.subId());

    e = rejects("[\"REQ\",\"s\",{\"authors\":[\"abc\"]}]");
    assertEquals("invalid: filter authors must be 64 lowercase hex characters", e.getMessage());
    assertEquals("s", e.subId());

    // A filter error followed by malformed JSON is a JSON error.
    assertEquals("invalid: message is not valid JSON",
        rejects("[\"REQ\",\"s\",{\"kinds\":[-1]},}]").getMessage());
  }

  @Test
  void messagesAreImmutable() throws Exception {
    var req = (ClientMessage.ReqMessage) parse("[\"REQ\",\"s\",{}]");
    assertThrows(UnsupportedOperationException.class, () -> req.filters().add(null));
    assertThrows(UnsupportedOperationException.class,
        () -> ((ClientMessage.EventMessage) parse("[\"EVENT\"," + EVENT + "]")).event().tags()
            .add(List.of()));
  }

  @Test
  void parsesNegentropyMessages() throws Exception {
    var open = assertInstanceOf(ClientMessage.NegOpenMessage.class,
        parse("[\"NEG-OPEN\",\"n\",{\"kinds\":[1],\"since\":5},\"61Ff\"]"));
    assertEquals("n", open.subId());
    assertEquals(Set.of(1), open.filter().kinds());
    assertEquals(5L, open.filter().since());
    org.junit.jupiter.api.Assertions.assertArrayEquals(new byte[] {0x61, (byte) 0xff}, open.message());
    var msg = assertInstanceOf(ClientMessage.NegMsgMessage.class, parse("[\"NEG-MSG\",\"n\",\"6100\"]"));
    assertEquals("n", msg.subId());
    assertEquals(2, msg.message().length);
    assertEquals("n", assertInstanceOf(ClientMessage.NegCloseMessage.class, parse("[\"NEG-CLOSE\",\"n\"]")).subId());
  }

  @Test
  void negentropyErrorsAnswerOnTheSession() {
    for (String bad : List.of(
        "[\"NEG-OPEN\",\"n\",{\"kinds\":\"x\"},\"61\"]",  // bad filter
        "[\"NEG-OPEN\",\"n\",{},{},\"61\"]",              // two filters
        "[\"NEG-OPEN\",\"n\",{}]",                       // no message
        "[\"NEG-OPEN\",\"n\",{},\"6\"]",                 // odd hex
        "[\"NEG-OPEN\",\"n\",{},\"zz\"]",                // not hex
        "[\"NEG-MSG\",\"n\",\"\"]",                      // empty
        "[\"NEG-MSG\",\"n\",61]",                        // not a string
        "[\"NEG-CLOSE\",\"n\",\"x\"]")) {                 // extra element
      InvalidMessageException e = rejects(bad);
      assertEquals("n", e.subId(), bad);
      org.junit.jupiter.api.Assertions.assertTrue(e.negentropy(), bad);
      org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith("invalid: "), bad);
    }
    // no usable session id: a NOTICE, like any frame without one
    InvalidMessageException e = rejects("[\"NEG-OPEN\",7,{},\"61\"]");
    assertNull(e.subId());
    // not JSON wins over everything
    rejects("[\"NEG-OPEN\",\"n\",{\"kinds\":\"x\"},\"61\"", "invalid: message is not valid JSON");
    rejects("[\"NEG-FOO\"]", "invalid: unknown message type \"NEG-FOO\"");
  }
}
