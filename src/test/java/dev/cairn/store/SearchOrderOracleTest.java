package dev.cairn.store;

import static dev.cairn.store.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * NIP-50 histories against a brute-force answer. The reader asks a common word's newest matches by
 * arrival first and reads the whole clause only when an event that arrived earlier could belong to the
 * answer, which it merges in; so the store holds events dated out of their arrival order (late arrivals
 * dated long before, and a few early arrivals dated after everything else), ties of created_at with ids
 * out of order, and words matched by most events, by some and by few.
 */
class SearchOrderOracleTest extends StoreTestBase {
  private static final Comparator<NostrEvent> NIP01 =
      Comparator.comparingLong(NostrEvent::createdAt).reversed().thenComparing(NostrEvent::id);
  private static final String[] AUTHORS = {Ev.ALICE, Ev.BOB, "d".repeat(64)};
  /** A word in 60% of the events (its newest matches are read first), 10%, 1%, both common ones, any case. */
  private static final String[] SEARCHES = {"granite", "basalt", "quartz", "granite stone", "Granite"};

  @Test
  void everySearchMatchesTheBruteForceAnswer() {
    Random rnd = new Random(11);
    List<NostrEvent> all = new ArrayList<>();
    List<NostrEvent> batch = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      long createdAt = 10_000 + i / 3; // runs of three equal created_at
      if (i % 20 == 7) {
        createdAt = 10_000 + rnd.nextInt(i / 3 + 1); // arrived late, dated before
      }
      String content = i < 12 ? (i % 3 == 0 ? "basalt slab " : "granite slab ") + i // arrived first, dated last
          : (rnd.nextInt(10) < 6 ? "granite " : "") + (rnd.nextInt(10) == 0 ? "basalt " : "")
              + (rnd.nextInt(100) == 0 ? "quartz " : "") + "stone " + i;
      if (i < 12) {
        createdAt = 20_000 + i % 4;
      }
      long idNum = ((long) rnd.nextInt(1 << 30) << 12) | i; // ids in random order against seq
      NostrEvent e = NostrEvent.of(Ev.id(idNum), AUTHORS[rnd.nextInt(AUTHORS.length)], createdAt,
          rnd.nextInt(3) == 0 ? 7 : 1, new ArrayList<>(List.of(tag("t", "tag" + rnd.nextInt(2)))), content, Ev.SIG);
      all.add(e);
      batch.add(e);
      if (batch.size() == 100) {
        store.persistBatch(batch, NOW);
        batch.clear();
      }
    }
    while (store.indexSearch(1_000)) {
      // the index builds from the stored events
    }
    int checked = 0;
    int nonEmpty = 0;
    for (int round = 0; round < 300; round++) {
      String search = SEARCHES[round % SEARCHES.length];
      int limit = 1 + rnd.nextInt(rnd.nextBoolean() ? 30 : 400);
      Filter f = new Filter(null,
          rnd.nextInt(3) == 0 ? (rnd.nextBoolean() ? Set.of(AUTHORS[0]) : Set.of(AUTHORS[0], AUTHORS[2])) : null,
          rnd.nextInt(3) == 0 ? Set.of(1) : null,
          rnd.nextInt(4) == 0 ? Map.of('t', Set.of("tag" + rnd.nextInt(2))) : Map.of(),
          rnd.nextInt(5) == 0 ? 10_000L + rnd.nextInt(900) : null,
          rnd.nextInt(5) == 0 ? 10_100L + rnd.nextInt(900) : null,
          limit, search);
      List<String> expected = all.stream().filter(e -> f.matches(e) && hasWords(e, search)).sorted(NIP01).limit(limit)
          .map(NostrEvent::id).toList();
      List<String> got = ids(f);
      assertEquals(expected, got, "search " + f);
      checked++;
      if (!got.isEmpty()) {
        nonEmpty++;
      }
    }
    assertEquals(300, checked);
    assertTrue(nonEmpty > 200, "the searches found events: " + nonEmpty);
  }

  /** Every word of {@code search} is a word of the content (the contents here are lower-case words). */
  private static boolean hasWords(NostrEvent e, String search) {
    List<String> words = Arrays.asList(e.content().split(" "));
    return Arrays.stream(search.toLowerCase(java.util.Locale.ROOT).split(" ")).allMatch(words::contains);
  }
}
