package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Filter objects (docs/fuzzing.md). Invariants: a filter or InvalidMessageException, nothing else;
 * the canonical form of a parsed filter parses back equal (and is a fixed point); ranges hold.
 */
class FilterFuzzTest {
  @FuzzTest(maxDuration = "10s")
  void filter(byte[] json) throws InvalidMessageException {
    // lenient decoding on purpose: the text entry point must cope with U+FFFD and anything else
    String text = new String(json, StandardCharsets.UTF_8);
    FuzzSupport.Outcome o = FuzzSupport.outcome(() -> FilterParser.parse(text));
    if (!o.ok()) {
      return;
    }
    Filter f = (Filter) o.value();
    FuzzSupport.assertFilterRoundTrip(f);
    assertTrue(f.since() == null || f.since() >= 0);
    assertTrue(f.until() == null || f.until() >= 0);
    assertTrue(f.limit() == null || f.limit() >= 0);
    assertTrue(f.kinds() == null || f.kinds().stream().allMatch(k -> k >= 0 && k <= 65535));
    assertTrue(f.tags().keySet().stream().allMatch(Character::isLetter));
  }
}
