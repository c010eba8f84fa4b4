package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventJsonTest {

  @Test
  void quotesWithStandardEscapes() {
    assertEquals("\"a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh\\u0001\\u001F\u007f é😀\"",
        JsonStrings.quote("a\"b\\c\nd\re\tf\bg\fh\u0001\u001f\u007f é😀"));
    assertEquals("\"\"", JsonStrings.quote(""));
    assertEquals("\"plain\"", JsonStrings.quote("plain"));
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
    String json = EventJson.toJson("i", "p", 42, 7, List.of(List.of("e", "x\"y"), List.of()),
        "c\n", "s");
    assertEquals("{\"id\":\"i\",\"pubkey\":\"p\",\"created_at\":42,\"kind\":7,"
        + "\"tags\":[[\"e\",\"x\\\"y\"],[]],\"content\":\"c\\n\",\"sig\":\"s\"}", json);
  }

  @Test
  void surrogateCheckFindsOnlyUnpairedHalves() {
    assertEquals(-1, JsonStrings.unpairedSurrogate("a😀b"));
    assertEquals(1, JsonStrings.unpairedSurrogate("a\ud800b"));
    assertEquals(0, JsonStrings.unpairedSurrogate("\ude00\ud83d"));
    assertEquals(1, JsonStrings.unpairedSurrogate("x\ud83d"));
  }
}
