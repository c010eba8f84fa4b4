package dev.cairn.nostr;

import static dev.cairn.nostr.TestEvents.ID;
import static dev.cairn.nostr.TestEvents.PUBKEY;
import static dev.cairn.nostr.TestEvents.SIG;
import static dev.cairn.nostr.TestEvents.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EventParserTest {

  private static InvalidMessageException rejects(String json) {
    return assertThrows(InvalidMessageException.class, () -> EventParser.parse(json));
  }

  private static void rejects(String json, String message) {
    assertEquals(message, rejects(json).getMessage());
  }

  @Test
  void contentLengthIsTheContentsUtf8Length() throws Exception {
    // a, newline (escaped: one byte), b, e-acute sent as an escape (2 bytes once serialized as NIP-01
    // says: raw UTF-8), the euro sign raw (3 bytes): what limits.max_content_length bounds
    NostrEvent e = EventParser.parse(json("content", "\"a\\nb\\u00e9\u20ac\""));
    assertEquals("a\nb\u00e9\u20ac".getBytes(java.nio.charset.StandardCharsets.UTF_8).length, e.bytes().contentLength());
    assertEquals(8, e.bytes().contentLength());
    assertEquals(0, EventParser.parse(json("content", "\"\"")).bytes().contentLength());
  }

  @Test
  void parsesEveryField() throws Exception {
    NostrEvent e = EventParser.parse(json("unknown", "{\"nested\":[1,{\"a\":[]}]}"));
    assertEquals(ID, e.id());
    assertEquals(PUBKEY, e.pubkey());
    assertEquals(1700000000L, e.createdAt());
    assertEquals(1, e.kind());
    assertEquals(List.of(List.of("e", ID), List.of("p", PUBKEY, "wss://r")), e.tags());
    assertEquals("hello", e.content());
    assertEquals(SIG, e.sig());
    // json is the canonical outgoing form: unknown fields dropped, fixed field order.
    assertEquals(json(), e.jsonText());
  }

  @Test
  void keepsStringsExactlyAsReceived() throws Exception {
    NostrEvent e = EventParser.parse(json(
        "content", "\"a\\nb\\\"c\\\\d\\te\u007f\\u0001\\ud83d\\ude00é\"",
        "tags", "[[\"t\",\"x\\ty\"],[]]"));
    assertEquals("a\nb\"c\\d\te\u007f\u0001\ud83d\ude00é", e.content());
    assertEquals(List.of(List.of("t", "x\ty"), List.of()), e.tags());
    assertEquals(e, EventParser.parse(e.json()));
  }

  @Test
  void acceptsBoundaryValues() throws Exception {
    assertEquals(0, EventParser.parse(json("kind", "0", "created_at", "0")).kind());
    assertEquals(65535, EventParser.parse(json("kind", "65535")).kind());
    assertEquals(Long.MAX_VALUE,
        EventParser.parse(json("created_at", "9223372036854775807")).createdAt());
    assertEquals(List.of(), EventParser.parse(json("tags", "[]")).tags());
  }

  @ParameterizedTest
  @ValueSource(strings = {"1.5", "1e3", "1700000000.0", "\"123\"", "-1", "9223372036854775808",
      "100000000000000000000", "null", "true", "[1]"})
  void rejectsCreatedAtThatIsNotANonNegativeIntegerLiteral(String raw) {
    rejects(json("created_at", raw), "invalid: created_at must be an integer");
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "65536", "4294967297", "1.0", "1e1", "\"1\"", "null"})
  void rejectsKindOutOfRange(String raw) {
    rejects(json("kind", raw), "invalid: kind must be an integer between 0 and 65535");
  }

  @Test
  void rejectsBadHex() {
    String upper = ID.toUpperCase();
    rejects(json("id", "\"" + upper + "\""), "invalid: id must be 64 lowercase hex characters");
    rejects(json("id", "\"" + ID.substring(1) + "\""), "invalid: id must be 64 lowercase hex characters");
    rejects(json("id", "1"), "invalid: id must be 64 lowercase hex characters");
    rejects(json("pubkey", "\"" + PUBKEY.toUpperCase() + "\""),
        "invalid: pubkey must be 64 lowercase hex characters");
    rejects(json("pubkey", "\"" + PUBKEY + "00\""),
        "invalid: pubkey must be 64 lowercase hex characters");
    rejects(json("pubkey", "\"" + "g".repeat(64) + "\""),
        "invalid: pubkey must be 64 lowercase hex characters");
    rejects(json("sig", "\"" + SIG.toUpperCase() + "\""),
        "invalid: sig must be 128 lowercase hex characters");
    rejects(json("sig", "\"" + ID + "\""), "invalid: sig must be 128 lowercase hex characters");
  }

  @Test
  void rejectsBadTagsAndContent() {
    String msg = "invalid: tags must be an array of arrays of strings";
    rejects(json("tags", "{}"), msg);
    rejects(json("tags", "\"e\""), msg);
    rejects(json("tags", "[\"e\"]"), "invalid: each tag must be an array of strings");
    rejects(json("tags", "[[\"e\",1]]"), "invalid: tag values must be strings");
    rejects(json("tags", "[[\"e\",null]]"), "invalid: tag values must be strings");
    rejects(json("tags", "[[[\"e\"]]]"), "invalid: tag values must be strings");
    rejects(json("content", "1"), "invalid: content must be a string");
    rejects(json("content", "null"), "invalid: content must be a string");
  }

  @Test
  void rejectsUnpairedSurrogates() {
    rejects(json("content", "\"a\\ud800b\""), "invalid: content contains an unpaired UTF-16 surrogate");
    rejects(json("content", "\"\\udc00\""), "invalid: content contains an unpaired UTF-16 surrogate");
    rejects(json("content", "\"\\ud83d\""), "invalid: content contains an unpaired UTF-16 surrogate");
    rejects(json("tags", "[[\"t\",\"\\ud800\"]]"), "invalid: tag contains an unpaired UTF-16 surrogate");
  }

  @Test
  void rejectsMissingAndDuplicateFields() {
    for (String field : List.of("id", "pubkey", "created_at", "kind", "tags", "content", "sig")) {
      rejects(json(field, null), "invalid: event is missing field \"" + field + "\"");
    }
    String dup = json().replace("\"content\":\"hello\"", "\"content\":\"hello\",\"content\":\"bye\"");
    rejects(dup, "invalid: duplicate field \"content\"");
    String dupId = json().replace("{\"id\":", "{\"id\":\"" + ID + "\",\"id\":");
    InvalidMessageException e = rejects(dupId);
    assertEquals("invalid: duplicate field \"id\"", e.getMessage());
    assertEquals(ID, e.eventId());
  }

  @Test
  void rejectsNonObjectsAndBadJson() {
    rejects("[]", "invalid: event must be a JSON object");
    rejects("\"x\"", "invalid: event must be a JSON object");
    rejects("", "invalid: event is not valid JSON");
    rejects("{", "invalid: event is not valid JSON");
    rejects(json() + "x", "invalid: event is not valid JSON");
    rejects(json() + " {}", "invalid: event is not valid JSON");
    rejects(json().replace("\"kind\":1", "\"kind\":01"), "invalid: event is not valid JSON");
    rejects(json().replace("\"hello\"", "'hello'"), "invalid: event is not valid JSON");
    // A syntax error after a structural one is still reported as bad JSON.
    rejects(json("kind", "-1") + "]", "invalid: event is not valid JSON");
  }

  @Test
  void carriesTheEventIdOfAnInvalidEvent() {
    // The faulty field comes before id: the parser reads on to find it.
    String pubkeyFirst = "{\"pubkey\":\"X\",\"tags\":[[1]],\"id\":\"" + ID + "\",\"x\":{\"id\":1}}";
    InvalidMessageException e = rejects(pubkeyFirst);
    assertEquals("invalid: pubkey must be 64 lowercase hex characters", e.getMessage());
    assertEquals(ID, e.eventId());
    // Fault deep inside tags, id after it.
    String deep = "{\"tags\":[[\"e\",{\"a\":[1]}],[\"p\"]],\"id\":\"" + ID + "\"}";
    assertEquals(ID, rejects(deep).eventId());
    assertEquals(ID, rejects(json("sig", null)).eventId());
    assertEquals(ID, rejects(json("kind", "1.5")).eventId());
    assertNull(rejects(json("id", "\"nothex\"", "kind", "1.5")).eventId());
    assertNull(rejects(json("id", "\"nothex\"")).eventId());
  }

  @Test
  void contentReadsOnlyTheContentMember() throws Exception {
    byte[] stored = ("{\"id\":\"" + ID + "\",\"tags\":[[\"content\",\"not this\"],[\"e\",{\"content\":1}]],"
        + "\"content\":\"caf\\u00e9 \\\"quoted\\\"\\n\u65e5\",\"kind\":1}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertEquals("caf\u00e9 \"quoted\"\n\u65e5", EventParser.content(stored));
    assertEquals("", EventParser.content("{\"kind\":1,\"tags\":[]}".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertThrows(InvalidMessageException.class, () -> EventParser.content("[1]".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    assertThrows(InvalidMessageException.class, () -> EventParser.content("{\"content\":".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }

  @Test
  void tagsReadsOnlyTheTagsMemberAsParseDoes() throws Exception {
    java.nio.charset.Charset utf8 = java.nio.charset.StandardCharsets.UTF_8;
    byte[] stored = ("{\"content\":\"{\\\"tags\\\":[[\\\"x\\\"]]}\",\"tags\":[[\"p\",\"" + ID + "\",\"wss://r\"],"
        + "[\"t\",\"caf\\u00e9\"],[\"e\"]],\"kind\":3}").getBytes(utf8);
    assertEquals(List.of(List.of("p", ID, "wss://r"), List.of("t", "caf\u00e9"), List.of("e")), EventParser.tags(stored));
    for (String doc : List.of(json(), json("tags", "[]"), json("tags", "[[\"e\",\"" + ID + "\",\"\",\"root\"],[\"d\",\"\"]]"),
        json("tags", "[[\"emoji\",\"\\ud83d\\ude00\",\"x\\ty\"],[\"k\",\"1\"]]"))) {
      byte[] json = doc.getBytes(utf8);
      assertEquals(EventParser.parse(json).tags(), EventParser.tags(json));
    }
    assertEquals(List.of(), EventParser.tags("{\"kind\":0}".getBytes(utf8)));
    assertThrows(InvalidMessageException.class, () -> EventParser.tags("[1]".getBytes(utf8)));
    assertThrows(InvalidMessageException.class, () -> EventParser.tags("{\"tags\":[[1]]}".getBytes(utf8)));
    assertThrows(InvalidMessageException.class, () -> EventParser.tags("{\"tags\":[[\"e\"".getBytes(utf8)));
  }
}
