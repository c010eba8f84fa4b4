package dev.cairn.store;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.Filter;
import dev.cairn.nostr.FilterParser;
import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.nostr.SampleText;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The store's part of the start-up warm-up (docs/decisions/0011-startup-warmup.md): the group-commit,
 * query and search-index paths of a SQLite tenant store, run by the database-engine before the relay
 * listens, on a throwaway store in a temporary directory (deleted afterwards), so the first clients'
 * writes and REQs do not pay for class loading, the interpreter and the JIT's first compiles. Same code
 * as a tenant's store; none of its files or rows.
 */
final class StoreWarmup {
  /** Stored events written, in group commits of the sizes below (one connection's to many's). */
  static final int EVENTS = 2_000;
  private static final int[] BATCH_SIZES = {1, 2, 8, 32, 128};
  /** Each of the query shapes, this many times. */
  static final int QUERIES_PER_SHAPE = 100;
  private static final int AUTHORS = 8;

  private StoreWarmup() {}

  /**
   * Runs it on the caller's thread (a worker: this is JDBC) in {@code dir}, deleted when it is over;
   * returns what it did, for the log.
   */
  static String run(Path dir) {
    long started = System.currentTimeMillis();
    try {
      return exercise(dir, started);
    } finally {
      ScratchDir.delete(dir);
    }
  }

  private static String exercise(Path dir, long started) {
    SqliteTenantStore store = SqliteTenantStore.open(dir.resolve("warmup.db"), 1);
    try {
      List<EventSigner> authors = new ArrayList<>();
      for (int i = 0; i < AUTHORS; i++) {
        authors.add(EventSigner.random());
      }
      long now = System.currentTimeMillis() / 1000;
      List<NostrEvent> events = events(authors, now);
      int written = 0;
      for (int b = 0; written < events.size(); b++) {
        int n = Math.min(BATCH_SIZES[b % BATCH_SIZES.length], events.size() - written);
        store.persist(events.subList(written, written + n), now);
        written += n;
      }
      while (store.indexSearch(1_000)) {
        // the NIP-50 index follows the outbox rows: to its end
      }
      int answered = 0;
      for (Filter f : filters(authors, events, now)) {
        for (int i = 0; i < QUERIES_PER_SHAPE; i++) {
          answered += store.query(List.of(f), Long.MAX_VALUE, 500, 5000, now).size();
        }
      }
      store.checkpoint();
      return written + " events stored in group commits of 1 to 128, " + QUERIES_PER_SHAPE
          + " REQs of each of 5 shapes (" + answered + " events read), on a throwaway store in "
          + (System.currentTimeMillis() - started) + " ms";
    } finally {
      store.close();
    }
  }

  /** The relay's usual mix: notes with tags, reactions, replaced profiles and articles, a deletion. */
  private static List<NostrEvent> events(List<EventSigner> authors, long now) {
    List<NostrEvent> out = new ArrayList<>(EVENTS);
    for (int i = 0; out.size() < EVENTS; i++) {
      EventSigner a = authors.get(i % authors.size());
      long at = now - EVENTS + i;
      String other = authors.get((i + 1) % authors.size()).pubkey();
      String earlier = out.isEmpty() ? a.pubkey() : out.get(out.size() / 2).id();
      switch (i % 10) {
        case 0, 1, 2, 3, 4, 5 -> out.add(a.sign(at, 1, List.of(List.of("e", earlier, "", "root"),
            List.of("p", other), List.of("t", "warmup" + (i % 7))), SampleText.of(i)));
        case 6, 7 -> out.add(a.sign(at, 7, List.of(List.of("e", earlier), List.of("p", other), List.of("k", "1")), "+"));
        case 8 -> out.add(a.sign(at, 0, List.of(), "{\"name\":\"warm-up " + i + "\"}")); // replaces the last one
        default -> out.add(a.sign(at, 30023, List.of(List.of("d", "article-" + (i % 3)), List.of("t", "warmup")),
            "# Warm-up article " + i));
      }
    }
    // a NIP-09 deletion of an earlier note of the same author
    EventSigner a = authors.get(0);
    out.set(out.size() - 1, a.sign(now, 5, List.of(List.of("e", out.get(0).id())), "warm-up deletion"));
    return out;
  }

  /** A REQ of each common shape: by author, by kinds and since, by tag, by ids, full text. */
  private static List<Filter> filters(List<EventSigner> authors, List<NostrEvent> events, long now) {
    StringBuilder ids = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      ids.append(i == 0 ? "" : ",").append('"').append(events.get(1 + i * 97).id()).append('"');
    }
    try {
      return List.of(
          FilterParser.parse("{\"authors\":[\"" + authors.get(1).pubkey() + "\"],\"limit\":100}"),
          FilterParser.parse("{\"kinds\":[1,7],\"since\":" + (now - EVENTS / 4) + ",\"limit\":500}"),
          FilterParser.parse("{\"#t\":[\"warmup3\"],\"limit\":100}"),
          FilterParser.parse("{\"ids\":[" + ids + "]}"),
          FilterParser.parse("{\"search\":\"nostr café\",\"limit\":50}"));
    } catch (InvalidMessageException e) {
      throw new IllegalStateException("a warm-up filter does not parse", e);
    }
  }
}
