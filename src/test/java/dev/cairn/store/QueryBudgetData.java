package dev.cairn.store;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Many events and a filter that reads them all: the material of the query budget tests. */
public final class QueryBudgetData {
  /** Topics the events spread over; the expensive filter names all but one. */
  static final int TOPICS = 20;

  private QueryBudgetData() {}

  /** {@code n} well-formed events (fake signatures: the store does not verify), one topic tag each. */
  public static List<NostrEvent> events(int n, long now) {
    List<NostrEvent> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(NostrEvent.of(String.format("%064x", i + 1L), "a".repeat(64), now - n + i, 1,
          List.of(List.of("t", "topic" + i % TOPICS)), "event number " + i, "c".repeat(128)));
    }
    return out;
  }

  /**
   * Several values of one tag: no single-value tag index to drive the walk, so SQLite goes through
   * every event newest first and probes the tag index for each.
   */
  public static Filter expensive() {
    Set<String> topics = new LinkedHashSet<>();
    for (int i = 0; i < TOPICS - 1; i++) {
      topics.add("topic" + i);
    }
    return new Filter(null, null, null, Map.of('t', topics), null, null, null, null);
  }
}
