package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FilterTest {
  private static final String ID = "11".repeat(32);
  private static final String PK = "22".repeat(32);
  private static final String OTHER = "33".repeat(32);

  private static final NostrEvent EVENT = NostrEvent.of(ID, PK, 1000, 1,
      List.of(List.of("e", OTHER), List.of("p", PK, "wss://relay"), List.of("t", "nostr"),
          List.of("t"), List.of("title", "x")),
      "hi", "ab".repeat(64));

  private static Filter filter(Set<String> ids, Set<String> authors, Set<Integer> kinds,
      Map<Character, Set<String>> tags, Long since, Long until) {
    return new Filter(ids, authors, kinds, tags, since, until, null, null);
  }

  @Test
  void emptyFilterMatchesEverything() {
    assertTrue(filter(null, null, null, null, null, null).matches(EVENT));
  }

  @Test
  void matchesIdsAuthorsKinds() {
    assertTrue(filter(Set.of(OTHER, ID), null, null, null, null, null).matches(EVENT));
    assertFalse(filter(Set.of(OTHER), null, null, null, null, null).matches(EVENT));
    assertTrue(filter(null, Set.of(PK), null, null, null, null).matches(EVENT));
    assertFalse(filter(null, Set.of(OTHER), null, null, null, null).matches(EVENT));
    assertTrue(filter(null, null, Set.of(1, 30023), null, null, null).matches(EVENT));
    assertFalse(filter(null, null, Set.of(0, 30023), null, null, null).matches(EVENT));
    // Every condition must hold at once.
    assertFalse(filter(Set.of(ID), Set.of(OTHER), null, null, null, null).matches(EVENT));
  }

  @Test
  void emptySetsMatchNothing() {
    assertFalse(filter(Set.of(), null, null, null, null, null).matches(EVENT));
    assertFalse(filter(null, Set.of(), null, null, null, null).matches(EVENT));
    assertFalse(filter(null, null, Set.of(), null, null, null).matches(EVENT));
    assertFalse(filter(null, null, null, Map.of('t', Set.of()), null, null).matches(EVENT));
  }

  @Test
  void sinceAndUntilAreInclusive() {
    assertTrue(filter(null, null, null, null, 1000L, 1000L).matches(EVENT));
    assertTrue(filter(null, null, null, null, 999L, 1001L).matches(EVENT));
    assertFalse(filter(null, null, null, null, 1001L, null).matches(EVENT));
    assertFalse(filter(null, null, null, null, null, 999L).matches(EVENT));
  }

  @Test
  void matchesSingleLetterTagsOnTheirFirstValue() {
    assertTrue(filter(null, null, null, Map.of('e', Set.of(OTHER)), null, null).matches(EVENT));
    assertTrue(filter(null, null, null, Map.of('p', Set.of(PK, OTHER)), null, null).matches(EVENT));
    assertTrue(filter(null, null, null, Map.of('t', Set.of("nostr")), null, null).matches(EVENT));
    assertFalse(filter(null, null, null, Map.of('t', Set.of("bitcoin")), null, null).matches(EVENT));
    // index 2 (relay hint) is not matched, nor another tag's value, nor a multi-letter name
    assertFalse(filter(null, null, null, Map.of('p', Set.of("wss://relay")), null, null).matches(EVENT));
    assertFalse(filter(null, null, null, Map.of('e', Set.of(PK)), null, null).matches(EVENT));
    assertFalse(filter(null, null, null, Map.of('t', Set.of("x")), null, null).matches(EVENT));
    assertFalse(filter(null, null, null, Map.of('E', Set.of(OTHER)), null, null).matches(EVENT));
    // all tag conditions must hold
    assertTrue(filter(null, null, null, Map.of('e', Set.of(OTHER), 't', Set.of("nostr")), null, null)
        .matches(EVENT));
    assertFalse(filter(null, null, null, Map.of('e', Set.of(OTHER), 't', Set.of("no")), null, null)
        .matches(EVENT));
  }

  @Test
  void ignoresLimitAndSearch() {
    assertTrue(new Filter(null, null, Set.of(1), null, null, null, 0, "unrelated words")
        .matches(EVENT));
  }
}
