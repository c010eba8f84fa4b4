package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventJsonTest {

  @Test
  void theIdAndCreatedAtOfEncodedJsonAreReadWhereTheyStand() {
    EventSigner signer = EventSigner.random();
    for (long createdAt : new long[] {0, 7, 1_700_000_000L, 999_999_999_999_999_999L}) {
      NostrEvent e = signer.sign(createdAt, 1, List.of(List.of("t", "x")), "ä \"quoted\" 😀");
      byte[] json = e.json();
      assertTrue(EventJson.isEncoded(json), new String(json, StandardCharsets.UTF_8));
      assertEquals(e.id(), EventJson.idOf(json));
      assertEquals(createdAt, EventJson.createdAtOf(json));
    }
  }

  @Test
  void jsonInAnyOtherFormIsNotReadAsEncoded() {
    NostrEvent e = EventSigner.random().sign(1_700_000_000L, 1, List.of(), "hi");
    String encoded = new String(e.json(), StandardCharsets.UTF_8);
    String[] others = {
        encoded.replace("{\"id\":", "{ \"id\":"), // whitespace
        encoded.replace(",\"created_at\":", ", \"created_at\":"),
        "{\"pubkey\":\"" + e.pubkey() + "\",\"id\":\"" + e.id() + "\",\"created_at\":1700000000,\"kind\":1}", // order
        encoded.replace("\"created_at\":1700000000", "\"created_at\":-1700000000"),
        encoded.replace("\"created_at\":1700000000", "\"created_at\":1700000000.5"),
        encoded.replace("\"created_at\":1700000000", "\"created_at\":1234567890123456789"), // 19 digits
        encoded.replace("\"created_at\":1700000000", "\"created_at\":\"1700000000\""),
        encoded.substring(0, 163), "", "{}"};
    for (String other : others) {
      assertFalse(EventJson.isEncoded(other.getBytes(StandardCharsets.UTF_8)), other);
    }
  }

  @Test
  void quotesWithStandardEscapes() {
    assertEquals("\"a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh\\u0001\\u001F\u007f é😀\"",
        JsonStrings.quote("a\"b\\c\nd\re\tf\bg\fh\u0001\u001f\u007f é😀"));
    assertEquals("\"\"", JsonStrings.quote(""));
    assertEquals("\"plain\"", JsonStrings.quote("plain"));
  }

  @Test
  void bytesWrittenIntoATightBufferMatchTheQuotedString() {
    // the writer reserves 1 byte per char and grows only for chars that take more: every kind, long
    // runs of it, and a mix, written after something so the growth starts mid-buffer
    String[] texts = {
        "plain ascii ".repeat(40), "日本語のテキスト".repeat(200), "😀🎉".repeat(300), "\u0001\n\"\\".repeat(250),
        "é".repeat(700), "a😀b\u0007cé日\"d".repeat(120), "", "x"};
    for (String t : texts) {
      JsonBytes out = new JsonBytes(16).ascii("[").string(t).ascii("]");
      assertEquals("[" + JsonStrings.quote(t) + "]", new String(out.toByteArray(), StandardCharsets.UTF_8),
          "text of " + t.length() + " chars");
    }
  }

  @Test
  void quotedStringsRoundTripThroughAJsonParser() throws Exception {
    StringBuilder all = new StringBuilder();
    for (char c = 0; c < 0x100; c++) {
      all.append(c);
    }
    all.append("😀\u2028");
    String s = all.toString();
    try (JsonParser p = new JsonFactory().createParser(JsonStrings.quote(s))) {
      assertEquals(JsonToken.VALUE_STRING, p.nextToken());
      assertEquals(s, p.getText());
    }
  }

  @Test
  void writesTheEventObjectInFieldOrder() {
    EventBytes b = EventJson.encode("i", "p", 42, 7, List.of(List.of("e", "x\"y"), List.of()), "c\n", "s");
    String json = new String(b.json(), StandardCharsets.UTF_8);
    assertEquals("{\"id\":\"i\",\"pubkey\":\"p\",\"created_at\":42,\"kind\":7,"
        + "\"tags\":[[\"e\",\"x\\\"y\"],[]],\"content\":\"c\\n\",\"sig\":\"s\"}", json);
    // the slices the id hash reads are the tags array and the quoted content
    assertTrue(b.canonicalSlices());
    assertEquals("[[\"e\",\"x\\\"y\"],[]]", json.substring(b.tagsFrom(), b.tagsTo()));
    assertEquals("\"c\\n\"", json.substring(b.contentFrom(), b.contentTo()));
  }

  @Test
  void aControlCharacterWithoutShortEscapeDisablesTheSlices() {
    EventBytes b = EventJson.encode("i", "p", 1, 1, List.of(), "bell\u0007", "s");
    assertFalse(b.canonicalSlices(), "JSON writes \\u0007, NIP-01 hashes the raw byte");
    assertTrue(new String(b.json(), StandardCharsets.UTF_8).contains("\\u0007"));
  }

  @Test
  void bytesWriterEscapesExactlyAsTheStringQuoting() {
    java.util.Random r = new java.util.Random(7);
    for (int n = 0; n < 2000; n++) {
      StringBuilder sb = new StringBuilder();
      for (int i = r.nextInt(40); i > 0; i--) {
        int pick = r.nextInt(6);
        sb.append(switch (pick) {
          case 0 -> (char) r.nextInt(0x20);
          case 1 -> (char) (0x20 + r.nextInt(0x60));
          case 2 -> (char) (0x80 + r.nextInt(0x780));
          case 3 -> (char) (0x800 + r.nextInt(0xd000));
          case 4 -> "😀";
          default -> r.nextBoolean() ? "\"" : "\\";
        });
      }
      String s = sb.toString();
      assertEquals(JsonStrings.quote(s), new String(new JsonBytes(4).string(s).toByteArray(), StandardCharsets.UTF_8), s);
    }
  }

  @Test
  void surrogateCheckFindsOnlyUnpairedHalves() {
    assertEquals(-1, JsonStrings.unpairedSurrogate("a😀b"));
    assertEquals(1, JsonStrings.unpairedSurrogate("a\ud800b"));
    assertEquals(0, JsonStrings.unpairedSurrogate("\ude00\ud83d"));
    assertEquals(1, JsonStrings.unpairedSurrogate("x\ud83d"));
  }
}
