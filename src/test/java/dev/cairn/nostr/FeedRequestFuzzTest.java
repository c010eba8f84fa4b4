package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * The change feed's request values: {@code Last-Event-ID}, {@code ?since=}, {@code kinds},
 * {@code authors} (docs/fuzzing.md). The input is up to four lines, one value each in that order; a
 * missing line is an absent value. Invariants: a request or FeedRequestException with a bounded
 * message, nothing else; the cursor written back parses to the same cursor; the narrowing is in range.
 */
class FeedRequestFuzzTest {
  @FuzzTest(maxDuration = "10s")
  void request(byte[] input) throws FeedRequestException {
    String[] v = new String(input, StandardCharsets.UTF_8).split("\n", 4);
    String lastEventId = v.length > 0 && input.length > 0 ? v[0] : null;
    String since = v.length > 1 ? v[1] : null;
    String kinds = v.length > 2 ? v[2] : null;
    String authors = v.length > 3 ? v[3] : null;
    FeedRequest r;
    try {
      r = FeedRequest.parse(lastEventId, since, kinds, authors);
    } catch (FeedRequestException e) {
      assertTrue(e.getMessage().startsWith("malformed "), e.getMessage());
      assertTrue(e.getMessage().length() < 200, "the echo of client text is bounded");
      return;
    }
    assertTrue(r.seq() == null ? r.epoch() == null : r.seq() >= 0);
    assertTrue(r.kinds().stream().allMatch(k -> k >= 0 && k <= 65535));
    assertTrue(r.authors().stream().allMatch(a -> Hex.isLowerHex(a, 64)));
    FeedRequest again = FeedRequest.parse(r.cursor(), null, null, null);
    assertEquals(r.epoch(), again.epoch());
    assertEquals(r.seq(), again.seq());
    // the header wins over since unless it is empty
    if (lastEventId != null && !lastEventId.isEmpty()) {
      assertEquals(r, FeedRequest.parse(lastEventId, "x", kinds, authors));
    }
  }
}
