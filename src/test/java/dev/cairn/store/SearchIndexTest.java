package dev.cairn.store;

import static dev.cairn.store.Ev.ALICE;
import static dev.cairn.store.Ev.BOB;
import static dev.cairn.store.Ev.SIG;
import static dev.cairn.store.Ev.id;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.nostr.FilterParser;
import dev.cairn.nostr.NostrEvent;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQLite search indexer (outbox {@code search} handler): the words of each stored content are found
 * once, whether the event reached the index through the first build, the outbox rows, or both (an event
 * stored while a new index builds is in both); a replaced or deleted event leaves it.
 */
class SearchIndexTest {
  private static final long NOW = 1_700_000_000L;

  @TempDir Path dir;
  private SqliteTenantStore store;

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  private static NostrEvent note(long n, String pubkey, int kind, String content) {
    return NostrEvent.of(id(n), pubkey, NOW - 1000 + n, kind, List.of(), content, SIG);
  }

  private long count(String search) throws Exception {
    return store.count(List.of(FilterParser.parse("{\"search\":\"" + search + "\"}")), Long.MAX_VALUE, NOW);
  }

  /** Entries of the FTS index itself matching {@code word} (a query would hide duplicates). */
  private long entries(String word) throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(
            "jdbc:sqlite:" + SqliteTenantStore.searchFileOf(store.file()));
        java.sql.ResultSet rs = c.createStatement().executeQuery(
            "SELECT count(*) FROM search_fts WHERE search_fts MATCH '\"" + word + "\"'")) {
      return rs.getLong(1);
    }
  }

  private void indexAll() {
    while (store.indexSearch(3)) {
      // small steps: the cursor and the build run across several transactions
    }
  }

  @Test
  void eventsStoredWhileTheIndexBuildsAreIndexedOnce() throws Exception {
    store = SqliteTenantStore.open(dir.resolve("t.db"), 1);
    store.persistBatch(List.of(note(1, ALICE, 1, "granite cairn"), note(2, BOB, 1, "granite ridge"),
        note(3, ALICE, 1, "")), NOW);
    store.indexSearch(3); // a new index: notes where the outbox stands, then builds from the stored events
    store.persistBatch(List.of(note(4, BOB, 1, "granite summit"), note(5, ALICE, 1, "Granite, again")), NOW);
    indexAll(); // the build covers 1..5, the outbox then brings 4 and 5 again
    assertEquals(4, count("granite"));
    assertEquals(4, entries("granite")); // one index entry per event, not one per way in
    assertEquals(1, count("summit"));
    assertEquals(0, count("nothing"));
    store.persistBatch(List.of(note(6, BOB, 1, "granite tor")), NOW);
    indexAll();
    assertEquals(5, count("granite"));
  }

  @Test
  void replacedAndDeletedEventsLeaveTheIndex() throws Exception {
    store = SqliteTenantStore.open(dir.resolve("t.db"), 1);
    store.persistBatch(List.of(note(1, ALICE, 0, "{\"name\":\"basalt\"}"), note(2, BOB, 1, "basalt column"),
        note(3, BOB, 1, "obsidian \\\"glass\\\" \u00e9clat")), NOW);
    indexAll();
    assertEquals(2, count("basalt"));
    assertEquals(1, count("eclat"));
    store.persistBatch(List.of(note(4, ALICE, 0, "{\"name\":\"gneiss\"}"), // replaces 1
        NostrEvent.of(id(5), BOB, NOW, 5, List.of(List.of("e", id(2))), "", SIG)), NOW); // deletes 2
    indexAll();
    assertEquals(0, count("basalt"));
    assertEquals(1, count("gneiss"));
    assertEquals(1, count("obsidian glass"));
  }
}
