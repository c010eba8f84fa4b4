package dev.cairn.store;

import static dev.cairn.store.Ev.ev;
import static dev.cairn.store.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * REQ histories against a brute-force answer on a store full of ties (few distinct created_at, ids
 * stored out of order): newest first, ties by lowest id, and a limit that cuts a group of equal
 * created_at keeps that group's lowest ids (the reader orders by time in SQL and breaks ties itself;
 * several authors' rows come by seq and are sorted whole; several values of a tag are read apart and
 * merged; ids read whole within the limit and sorted by the reader).
 */
class QueryOrderOracleTest extends StoreTestBase {
  private static final Comparator<NostrEvent> NIP01 =
      Comparator.comparingLong(NostrEvent::createdAt).reversed().thenComparing(NostrEvent::id);
  private static final String[] AUTHORS = {Ev.ALICE, Ev.BOB, "d".repeat(64)};

  @Test
  void everyShapeMatchesTheBruteForceAnswer() {
    Random rnd = new Random(7);
    List<NostrEvent> all = new ArrayList<>();
    List<NostrEvent> batch = new ArrayList<>();
    for (int i = 0; i < 1500; i++) {
      // ids in random order against seq: the store's walk order is not the id order
      long idNum = ((long) rnd.nextInt(1 << 30) << 12) | i;
      // a quarter with a second hashtag: a filter on several values matches them twice
      NostrEvent e = rnd.nextInt(4) == 0
          ? ev(idNum, AUTHORS[rnd.nextInt(AUTHORS.length)], 1000 + rnd.nextInt(40), rnd.nextBoolean() ? 1 : 7,
              tag("t", "tag" + rnd.nextInt(3)), tag("t", "tag" + rnd.nextInt(3)))
          : ev(idNum, AUTHORS[rnd.nextInt(AUTHORS.length)], 1000 + rnd.nextInt(40), rnd.nextBoolean() ? 1 : 7,
              tag("t", "tag" + rnd.nextInt(3)));
      all.add(e);
      batch.add(e);
      if (batch.size() == 100) {
        store.persistBatch(batch, NOW);
        batch.clear();
      }
    }
    int checked = 0;
    int cutTies = 0;
    for (int round = 0; round < 400; round++) {
      int limit = 1 + rnd.nextInt(rnd.nextBoolean() ? 12 : 200);
      Filter f = switch (round % 9) {
        case 0 -> new Filter(null, null, null, null, null, null, limit, null);
        case 1 -> new Filter(null, null, rnd.nextBoolean() ? Set.of(1) : Set.of(1, 7), null, 1000L + rnd.nextInt(20), null,
            limit, null);
        case 2 -> new Filter(null, Set.of(AUTHORS[rnd.nextInt(AUTHORS.length)]), null, null, null, null, limit, null);
        // a tag drives: since and until bound its index walk
        case 3 -> new Filter(null, null, null, Map.of('t', Set.of("tag" + rnd.nextInt(3))),
            rnd.nextBoolean() ? null : 1000L + rnd.nextInt(20), rnd.nextBoolean() ? null : 1010L + rnd.nextInt(30), limit,
            null);
        case 4 -> new Filter(null, Set.of(AUTHORS[0]), Set.of(7), null, null, 1000L + rnd.nextInt(40), limit, null);
        // several values of a tag: one walk of the tag index per value, merged and deduplicated
        case 5 -> new Filter(null, null, rnd.nextBoolean() ? Set.of(7) : null,
            Map.of('t', rnd.nextBoolean() ? Set.of("tag0", "tag2") : Set.of("tag0", "tag1", "tag2")), null,
            rnd.nextBoolean() ? null : 1000L + rnd.nextInt(40), limit, null);
        // authors and tag values: each of the authors' rows probes the tag index
        case 6 -> new Filter(null, rnd.nextBoolean() ? Set.of(AUTHORS[rnd.nextInt(AUTHORS.length)]) : Set.of(AUTHORS[0], AUTHORS[1]),
            rnd.nextBoolean() ? Set.of(1) : null,
            Map.of('t', rnd.nextBoolean() ? Set.of("tag" + rnd.nextInt(3)) : Set.of("tag0", "tag2")), null, null, limit, null);
        // ids: within the limit read whole and sorted by the reader, past it ordered by SQLite and cut
        case 8 -> new Filter(someIds(all, rnd), null, rnd.nextBoolean() ? Set.of(7) : null, null, null, null, limit, null);
        // several authors: their runs merged (seqs through SQLite's sorter, then the rows read by seq)
        default -> new Filter(null, rnd.nextBoolean() ? Set.of(AUTHORS) : Set.of(AUTHORS[0], AUTHORS[2]),
            rnd.nextBoolean() ? Set.of(1) : null, null, null, rnd.nextBoolean() ? null : 1000L + rnd.nextInt(40), limit, null);
      };
      List<String> expected = all.stream().filter(f::matches).sorted(NIP01).limit(limit).map(NostrEvent::id).toList();
      sameOrder(expected, ids(f), "filter " + f);
      List<NostrEvent> matching = all.stream().filter(f::matches).sorted(NIP01).toList();
      if (matching.size() > limit && matching.get(limit).createdAt() == matching.get(limit - 1).createdAt()) {
        cutTies++;
      }
      checked++;
    }
    // two filters: each cut at its own limit, the union deduplicated and in the same order
    Filter a = new Filter(null, null, Set.of(1), null, null, null, 30, null);
    Filter b = new Filter(null, Set.of(Ev.ALICE), null, null, null, null, 25, null);
    List<String> union = java.util.stream.Stream.concat(
            all.stream().filter(a::matches).sorted(NIP01).limit(30),
            all.stream().filter(b::matches).sorted(NIP01).limit(25))
        .distinct().sorted(NIP01).map(NostrEvent::id).toList();
    sameOrder(union, ids(a, b), "two filters");
    assertEquals(400, checked);
    assertTrue(cutTies > 50, "the rounds exercised limits inside a tie group: " + cutTies);
  }

  /** 1 to 60 stored ids (some may repeat) and one that names no event. */
  private static Set<String> someIds(List<NostrEvent> all, Random rnd) {
    Set<String> ids = new java.util.HashSet<>();
    for (int n = 1 + rnd.nextInt(60); n > 0; n--) {
      ids.add(all.get(rnd.nextInt(all.size())).id());
    }
    ids.add("e".repeat(64));
    return ids;
  }

  /** Equal lists, or the first position where they part. */
  private static void sameOrder(List<String> expected, List<String> got, String what) {
    int i = 0;
    while (i < Math.min(expected.size(), got.size()) && expected.get(i).equals(got.get(i))) {
      i++;
    }
    if (i < expected.size() || i < got.size()) {
      throw new AssertionError(what + ": " + expected.size() + " expected, " + got.size() + " returned, first difference at "
          + i + ": expected " + (i < expected.size() ? expected.get(i) : "none") + ", got " + (i < got.size() ? got.get(i) : "none"));
    }
  }
}
