package dev.cairn.nostr;

import static dev.cairn.nostr.TestEvents.PUBKEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventIdTest {

  /** Reference hash of a hand-written canonical serialization. */
  private static String sha256(String canonical) throws Exception {
    return Hex.encode(MessageDigest.getInstance("SHA-256")
        .digest(canonical.getBytes(StandardCharsets.UTF_8)));
  }

  private static NostrEvent event(String id, List<List<String>> tags, String content) {
    return NostrEvent.of(id, PUBKEY, 1700000000L, 1, tags, content, "ab".repeat(64));
  }

  @Test
  void hashesTheNip01SerializationWithTheSevenShortEscapes() throws Exception {
    String content = "line\nquote\"back\\slash\rtab\tbs\bff\fdel\u007f é 😀";
    List<List<String>> tags = List.of(List.of("t", "a\"b\n"), List.of("e"));
    String canonical = "[0,\"" + PUBKEY + "\",1700000000,1,[[\"t\",\"a\\\"b\\n\"],[\"e\"]],"
        + "\"line\\nquote\\\"back\\\\slash\\rtab\\tbs\\bff\\fdel\u007f é 😀\"]";
    String id = sha256(canonical);
    assertEquals(id, EventId.compute(event("0".repeat(64), tags, content)));
    assertTrue(EventId.verify(event(id, tags, content)));
    // DEL has no escape form that counts: the \u007f spelling is not accepted.
    String escapedDel = sha256(canonical.replace("\u007f", "\\u007f"));
    assertFalse(EventId.verify(event(escapedDel, tags, content)));
  }

  @Test
  void acceptsBothSpellingsOfOtherC0Controls() throws Exception {
    String content = "a\u0001b\u001fc";
    List<List<String>> tags = List.of(List.of("t", "\u0000"));
    String prefix = "[0,\"" + PUBKEY + "\",1700000000,1,";
    String verbatim = sha256(prefix + "[[\"t\",\"\u0000\"]],\"a\u0001b\u001fc\"]");
    String escaped = sha256(prefix + "[[\"t\",\"\\u0000\"]],\"a\\u0001b\\u001fc\"]");
    assertEquals(verbatim, EventId.compute(event("x", tags, content)));
    assertTrue(EventId.verify(event(verbatim, tags, content)));
    assertTrue(EventId.verify(event(escaped, tags, content)));
    // Uppercase hex digits in the escape (not what JSON.stringify writes) do not count.
    String upper = sha256(prefix + "[[\"t\",\"\\u0000\"]],\"a\\u0001b\\u001Fc\"]");
    assertFalse(EventId.verify(event(upper, tags, content)));
    assertFalse(EventId.verify(event("0".repeat(64), tags, content)));
  }

  @Test
  void rejectsAnyChangedField() throws Exception {
    NostrEvent e = event("0".repeat(64), List.of(), "hi");
    String id = EventId.compute(e);
    assertTrue(EventId.verify(event(id, List.of(), "hi")));
    assertFalse(EventId.verify(event(id, List.of(), "hi ")));
    assertFalse(EventId.verify(event(id, List.of(List.of()), "hi")));
    assertFalse(EventId.verify(event(id.toUpperCase(), List.of(), "hi")));
    assertFalse(EventId.verify(
        NostrEvent.of(id, PUBKEY, 1700000001L, 1, List.of(), "hi", "ab".repeat(64))));
  }

  @Test
  void hashesLongEventsAcrossBufferBoundaries() throws Exception {
    String content = "é😀\"x".repeat(5000); // far beyond one 8 KiB staging buffer
    String canonical = "[0,\"" + PUBKEY + "\",1700000000,1,[],\""
        + "é😀\\\"x".repeat(5000) + "\"]";
    assertEquals(sha256(canonical), EventId.compute(event("x", List.of(), content)));
    // and the per-thread state is clean for the next, short event
    assertEquals(sha256("[0,\"" + PUBKEY + "\",1700000000,1,[],\"\"]"),
        EventId.compute(event("x", List.of(), "")));
  }
}
