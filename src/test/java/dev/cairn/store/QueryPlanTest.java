package dev.cairn.store;

import static dev.cairn.store.Ev.ev;
import static dev.cairn.store.Ev.id;
import static dev.cairn.store.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The common REQ shapes use an index (no full scan of events). The 1M-row timing run is opt-in:
 * {@code -Dcairn.store.bench=true}.
 */
class QueryPlanTest extends StoreTestBase {

  static String author(int i) {
    return String.format("%064x", 0xA000000L + i);
  }

  static Map<String, Filter> shapes() {
    Map<String, Filter> m = new LinkedHashMap<>();
    m.put("by-author", new Filter(null, Set.of(author(7)), null, null, null, null, 500, null));
    m.put("by-authors+kind", new Filter(null, Set.of(author(7), author(8), author(9)), Set.of(1),
        null, null, null, 500, null));
    Set<String> follows = new java.util.HashSet<>();
    for (int i = 0; i < 300; i++) {
      follows.add(author(i * 3));
    }
    m.put("timeline", new Filter(null, follows, Set.of(1, 6), null, null, null, 100, null));
    m.put("profiles", new Filter(null, Set.of(author(7), author(8)), Set.of(0, 3), null, null, null, 500, null));
    m.put("by-kinds", new Filter(null, null, Set.of(1, 7), null, null, null, 500, null));
    m.put("by-kind+since", new Filter(null, null, Set.of(7), null, NOW - 5000, null, 500, null));
    m.put("by-#t", new Filter(null, null, null, Map.of('t', Set.of("rare3")), null, null, 500, null));
    m.put("by-#t-popular", new Filter(null, null, null, Map.of('t', Set.of("common")), null, null, 500, null));
    m.put("by-#p+kind", new Filter(null, null, Set.of(1), Map.of('p', Set.of(author(3))), null, null, 500, null));
    m.put("by-#p-several+kind", new Filter(null, null, Set.of(1),
        Map.of('p', Set.of(author(3), author(4), author(5))), null, null, 500, null));
    m.put("by-ids", new Filter(Set.of(id(5), id(77), id(123456)), null, null, null, null, null, 500, null));
    m.put("recent", new Filter(null, null, null, null, null, null, 500, null));
    return m;
  }

  private void fill(int n) {
    List<NostrEvent> batch = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      int kind = i % 10 == 0 ? 7 : 1;
      batch.add(ev(i, author(i % 1000), NOW - n + i, kind,
          tag("t", i % 2 == 0 ? "common" : "rare" + (i % 997)), tag("p", author(i % 1013))));
      if (batch.size() == 4096) {
        store.persistBatch(batch, NOW);
        batch.clear();
      }
    }
    store.persistBatch(batch, NOW);
  }

  @Test
  void commonShapesUseIndexes() {
    fill(3000);
    for (Map.Entry<String, Filter> e : shapes().entrySet()) {
      if (e.getKey().equals("recent")) {
        continue;
      }
      List<String> plan = store.explainQuery(e.getValue(), Long.MAX_VALUE, 500, NOW);
      String joined = String.join(" | ", plan);
      assertTrue(plan.stream().noneMatch(l -> l.matches("SCAN e( .*)?") && !l.contains("USING")),
          e.getKey() + " scans the table: " + joined);
      assertTrue(joined.contains("USING"), e.getKey() + ": " + joined);
      if (List.of("by-author", "by-kind+since", "by-#t", "by-#t-popular", "by-#p-several+kind", "by-ids", "recent")
          .contains(e.getKey())) {
        // one author, one kind, one tag (several values are read one by one): the index walk is the
        // order, no row (with its JSON) goes through a sorter; the reader breaks created_at ties itself.
        // Ids within the limit: every row they match is read, in no order, and sorted by the reader
        assertTrue(!joined.contains("TEMP B-TREE"), e.getKey() + " sorts: " + joined);
      }
    }
    // several authors (a home feed): the sorter takes seqs from the author index alone, and only the
    // rows that survive it are read, by seq; several kinds: the same, the kind index with its rows
    for (String merged : List.of("by-authors+kind", "timeline", "by-kinds")) {
      String plan = String.join(" | ", store.explainQuery(shapes().get(merged), Long.MAX_VALUE, 500, NOW));
      String index = merged.equals("by-kinds") ? "INDEX events_kind" : "COVERING INDEX events_pubkey";
      assertTrue(plan.contains(index) && plan.contains("INTEGER PRIMARY KEY"), merged + ": " + plan);
    }
    // a tag drives: since and until bound the range of its index entries, not only the rows it joins (an
    // until deep in a popular tag's history would read every newer entry first)
    String window = String.join(" | ", store.explainQuery(new Filter(null, null, null, Map.of('t', Set.of("common")),
        NOW - 2000, NOW - 1000, 100, null), Long.MAX_VALUE, 500, NOW));
    assertTrue(window.contains("SEARCH t USING PRIMARY KEY (k=? AND created_at>? AND created_at<?)"), window);
    // authors and a tag: each of the authors' rows probes the tag index by its key; the set of every event
    // with the value is not read
    for (Filter f : List.of(new Filter(null, Set.of(author(7)), Set.of(1), Map.of('t', Set.of("common")), null, null, 100, null),
        new Filter(null, Set.of(author(7), author(8)), null, Map.of('p', Set.of(author(3), author(4))), null, null, 100, null))) {
      String probe = String.join(" | ", store.explainQuery(f, Long.MAX_VALUE, 500, NOW));
      assertTrue(probe.contains("SEARCH x EXISTS USING PRIMARY KEY (k=? AND created_at=? AND seq=?)")
          && !probe.contains("SEARCH x USING PRIMARY KEY (k=?)"), probe);
    }
    String recent = String.join(" | ", store.explainQuery(shapes().get("recent"), Long.MAX_VALUE, 500, NOW));
    assertTrue(recent.contains("events_created") && !recent.contains("TEMP B-TREE FOR ORDER BY"), recent);
  }

  @Test
  void millionRowTimings() {
    assumeTrue(Boolean.getBoolean("cairn.store.bench"), "opt-in: -Dcairn.store.bench=true");
    long t0 = System.nanoTime();
    fill(1_000_000);
    System.out.printf("fill 1M: %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    for (Map.Entry<String, Filter> e : shapes().entrySet()) {
      System.out.println(e.getKey() + ": " + store.explainQuery(e.getValue(), Long.MAX_VALUE, 500, NOW));
      long best = Long.MAX_VALUE;
      int rows = 0;
      for (int r = 0; r < 5; r++) {
        long s = System.nanoTime();
        rows = store.query(List.of(e.getValue()), Long.MAX_VALUE, 500, 5000, NOW).size();
        best = Math.min(best, System.nanoTime() - s);
      }
      long cs = System.nanoTime();
      long count = store.count(List.of(e.getValue()), Long.MAX_VALUE, NOW);
      System.out.printf("  %d rows in %.2f ms; count %d in %.1f ms%n", rows, best / 1e6, count,
          (System.nanoTime() - cs) / 1e6);
      assertTrue(best < 200_000_000L, e.getKey() + " too slow");
    }
  }
}
