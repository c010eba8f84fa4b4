package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The change feed's cursor and narrowing, as SseStreams used to parse them inline, plus the fuzzing findings. */
class FeedRequestTest {
  private static final String A = "ab".repeat(32);

  @Test
  void cursorsAndNarrowing() throws FeedRequestException {
    assertEquals(new FeedRequest("abcdefg2", 42L, Set.of(), Set.of()), FeedRequest.parse("abcdefg2:42", null, null, null));
    assertEquals(new FeedRequest(null, 7L, Set.of(1, 7), Set.of(A)), FeedRequest.parse("", " 7 ", "1, 7,,", A));
    assertEquals(new FeedRequest(null, null, Set.of(), Set.of()), FeedRequest.parse(null, null, " ", ""));
    assertEquals(99L, FeedRequest.parse("99", "5", null, null).seq(), "the header wins");
    assertEquals("abcdefg2:42", FeedRequest.parse("abcdefg2:42", null, null, null).cursor());
  }

  @Test
  void malformedValuesSayWhich() {
    assertEquals("malformed Last-Event-ID: \"x\" (expected <epoch>:<seq> or <seq>)", refusal("x", null, null, null));
    assertEquals("malformed since: \"ABCDEFGH:1\" (expected <epoch>:<seq> or <seq>)", refusal(null, "ABCDEFGH:1", null, null));
    assertEquals("malformed kinds: \"1,70000\" (expected e.g. 1,7)", refusal(null, null, "1,70000", null));
    assertEquals("malformed authors: \"AB\" (expected 64 lowercase hex)", refusal(null, null, null, "AB"));
    refusal("1234567890123456789", null, null, null); // 19 digits: not a seq the feed hands out
  }

  @Test
  void kindsInArabicIndicDigitsAreRefused() {
    // Integer.parseInt reads "٣" as 3; the query string is ASCII or malformed
    refusal(null, null, "\u0663", null);
    refusal(null, null, "+5", null);
  }

  @Test
  void aLongMalformedCursorIsEchoedCut() {
    String m = refusal("x".repeat(10_000), null, null, null);
    assertTrue(m.length() < 200, m);
  }

  private static String refusal(String lastEventId, String since, String kinds, String authors) {
    return assertThrows(FeedRequestException.class, () -> FeedRequest.parse(lastEventId, since, kinds, authors))
        .getMessage();
  }
}
