package dev.cairn.store.feed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.JsonBytes;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A stored row's data line: the event JSON as stored, on one line whatever an older version wrote. */
class FeedRowTest {
  private static String data(byte[] json) {
    JsonBytes out = new JsonBytes(16);
    new FeedRow(12, 345, FeedChange.STORED, null, 0, null, null, json).data(out);
    return new String(out.toByteArray(), StandardCharsets.UTF_8);
  }

  @Test
  void lineBreaksAreFoundAtEveryPositionOfTheEightByteSteps() {
    for (int len = 1; len <= 40; len++) {
      byte[] plain = new byte[len];
      java.util.Arrays.fill(plain, (byte) 'a');
      assertFalse(FeedRow.hasLineBreak(plain), "none in " + len);
      for (int at = 0; at < len; at++) {
        for (byte brk : new byte[] {'\n', '\r'}) {
          byte[] b = plain.clone();
          b[at] = brk;
          assertTrue(FeedRow.hasLineBreak(b), "at " + at + " of " + len);
        }
      }
    }
    // bytes next to the looked-for ones (0x09, 0x0B, 0x0C, 0x0E, 0x8A) and non-ASCII are not breaks
    assertFalse(FeedRow.hasLineBreak(new byte[] {9, 11, 12, 14, (byte) 0x8A, (byte) 0x8D, (byte) 0xFF, 0, 1, 2}));
    assertFalse(FeedRow.hasLineBreak("{\"content\":\"a\\nb ünï\"}".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void storedJsonIsCopiedAsStoredOrPutOnOneLine() {
    String compact = "{\"id\":\"ab\",\"content\":\"x\\ny\"}";
    assertEquals("{\"seq\":12,\"ts\":345,\"event\":" + compact + "}", data(compact.getBytes(StandardCharsets.UTF_8)));
    String multiline = "{\n  \"id\": \"ab\",\r\n  \"content\": \"x\\ny\"\n}";
    JsonObject d = new JsonObject(data(multiline.getBytes(StandardCharsets.UTF_8)));
    assertFalse(d.encode().contains("\n"));
    assertEquals("x\ny", d.getJsonObject("event").getString("content"));
    assertEquals(12, d.getLong("seq"));
  }

  @Test
  void numbersAreWrittenWithoutAString() {
    JsonBytes out = new JsonBytes(1);
    out.number(0).put(' ').number(7).put(' ').number(10).put(' ').number(-42).put(' ').number(1796152993218L)
        .put(' ').number(Long.MAX_VALUE).put(' ').number(Long.MIN_VALUE);
    assertEquals("0 7 10 -42 1796152993218 " + Long.MAX_VALUE + " " + Long.MIN_VALUE,
        new String(out.toByteArray(), StandardCharsets.US_ASCII));
  }
}
