package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;

/**
 * WebSocket text frames into client messages (docs/fuzzing.md). Invariants: the parser returns a
 * message or throws InvalidMessageException (nothing else, no hang); the byte entry point (what the
 * relay uses) and the text one agree on every well-formed UTF-8 frame; a parsed message written back
 * out (events by EventJson, filters in canonical form) parses to the same message.
 */
class ClientMessageFuzzTest {
  private static final int MAX_SUB_ID = 64;
  private static final int MAX_FILTERS = 10;

  @FuzzTest(maxDuration = "10s")
  void frame(byte[] frame) throws InvalidMessageException {
    FuzzSupport.Outcome fromBytes = FuzzSupport.outcome(() -> ClientMessageParser.parse(frame, MAX_SUB_ID, MAX_FILTERS));
    String text = FuzzSupport.strictUtf8(frame);
    if (text != null) {
      FuzzSupport.Outcome fromText = FuzzSupport.outcome(() -> ClientMessageParser.parse(text, MAX_SUB_ID, MAX_FILTERS));
      if (fromBytes.ok() && fromText.ok()) {
        assertSameMessage((ClientMessage) fromBytes.value(), (ClientMessage) fromText.value());
      } else {
        FuzzSupport.assertSameOutcome(fromBytes, fromText);
      }
    }
    if (fromBytes.ok()) {
      ClientMessage m = (ClientMessage) fromBytes.value();
      assertSameMessage(m, ClientMessageParser.parse(write(m), MAX_SUB_ID, MAX_FILTERS));
      if (m instanceof ClientMessage.EventMessage em) {
        FuzzSupport.assertEventRoundTrip(em.event());
      } else if (m instanceof ClientMessage.AuthMessage am) {
        FuzzSupport.assertEventRoundTrip(am.event());
      } else if (m instanceof ClientMessage.ReqMessage req) {
        for (Filter f : req.filters()) {
          FuzzSupport.assertFilterRoundTrip(f);
        }
      } else if (m instanceof ClientMessage.CountMessage count) {
        for (Filter f : count.filters()) {
          FuzzSupport.assertFilterRoundTrip(f);
        }
      }
    }
  }

  /** The message as a client would send it. */
  private static String write(ClientMessage m) {
    if (m instanceof ClientMessage.EventMessage em) {
      return "[\"EVENT\"," + em.event().jsonText() + "]";
    }
    if (m instanceof ClientMessage.AuthMessage am) {
      return "[\"AUTH\"," + am.event().jsonText() + "]";
    }
    if (m instanceof ClientMessage.ReqMessage req) {
      return withFilters("REQ", req.subId(), req.filters());
    }
    if (m instanceof ClientMessage.CountMessage count) {
      return withFilters("COUNT", count.subId(), count.filters());
    }
    if (m instanceof ClientMessage.NegOpenMessage open) {
      return "[\"NEG-OPEN\"," + JsonStrings.quote(open.subId()) + "," + FilterJson.canonical(open.filter()) + ","
          + JsonStrings.quote(Hex.encode(open.message())) + "]";
    }
    if (m instanceof ClientMessage.NegMsgMessage msg) {
      return "[\"NEG-MSG\"," + JsonStrings.quote(msg.subId()) + "," + JsonStrings.quote(Hex.encode(msg.message())) + "]";
    }
    if (m instanceof ClientMessage.NegCloseMessage close) {
      return "[\"NEG-CLOSE\"," + JsonStrings.quote(close.subId()) + "]";
    }
    return "[\"CLOSE\"," + JsonStrings.quote(((ClientMessage.CloseMessage) m).subId()) + "]";
  }

  /** Equal messages; the NEG-OPEN and NEG-MSG records hold byte arrays, compared by content. */
  private static void assertSameMessage(ClientMessage expected, ClientMessage actual) {
    if (expected instanceof ClientMessage.NegOpenMessage e && actual instanceof ClientMessage.NegOpenMessage a) {
      assertEquals(e.subId(), a.subId());
      assertEquals(e.filter(), a.filter());
      assertArrayEquals(e.message(), a.message());
    } else if (expected instanceof ClientMessage.NegMsgMessage e && actual instanceof ClientMessage.NegMsgMessage a) {
      assertEquals(e.subId(), a.subId());
      assertArrayEquals(e.message(), a.message());
    } else {
      assertEquals(expected, actual);
    }
  }

  private static String withFilters(String verb, String subId, List<Filter> filters) {
    StringBuilder sb = new StringBuilder("[\"").append(verb).append("\",");
    JsonStrings.quote(sb, subId);
    for (Filter f : filters) {
      sb.append(',').append(FilterJson.canonical(f));
    }
    return sb.append(']').toString();
  }
}
