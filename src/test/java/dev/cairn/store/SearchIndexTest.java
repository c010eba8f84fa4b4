package dev.cairn.store;

import static dev.cairn.store.Ev.ALICE;
import static dev.cairn.store.Ev.BOB;
import static dev.cairn.store.Ev.SIG;
import static dev.cairn.store.Ev.id;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    return indexCount("SELECT count(*) FROM search_fts WHERE search_fts MATCH '\"" + word + "\"'");
  }

  /** Rows of the FTS index itself. */
  private long indexRows() throws Exception {
    return indexCount("SELECT count(*) FROM search_fts");
  }

  /** A count read from the search DB on a side connection. */
  private long indexCount(String query) throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(
            "jdbc:sqlite:" + SqliteTenantStore.searchFileOf(store.file()));
        java.sql.ResultSet rs = c.createStatement().executeQuery(query)) {
      return rs.getLong(1);
    }
  }

  /** Replaces the search DB's index table with {@code create}, then runs {@code then} (a side connection). */
  private static void replaceIndex(Path db, String create, String... then) throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + SqliteTenantStore.searchFileOf(db));
        java.sql.Statement st = c.createStatement()) {
      st.execute("DROP TABLE search_fts");
      st.execute(create);
      for (String sql : then) {
        st.execute(sql);
      }
    }
  }

  /**
   * Stores and indexes {@code notes} in {@code db}, then, the store closed, replaces its index as an older
   * version left it ({@link #replaceIndex}), opens it again (its migrations run) and indexes what is due.
   */
  private void reopenWithIndex(Path db, List<NostrEvent> notes, String create, String... then) throws Exception {
    store = SqliteTenantStore.open(db, 1);
    store.persistBatch(notes, NOW);
    indexAll();
    store.close();
    replaceIndex(db, create, then);
    store = SqliteTenantStore.open(db, 1);
    indexAll();
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
  void contentWithoutAWordIsNotIndexed() throws Exception {
    store = SqliteTenantStore.open(dir.resolve("t.db"), 1);
    store.persistBatch(List.of(note(1, ALICE, 7, "+"), note(2, BOB, 7, "\ud83d\ude4f"), note(3, ALICE, 1, " -- "),
        note(4, BOB, 1, ""), note(5, ALICE, 1, "+ granite")), NOW);
    indexAll();
    assertEquals(1, indexRows()); // only the note with a word: no search could match the others
    assertEquals(1, count("granite"));
    assertEquals(0, count("+"));
    // deleting an event that was never indexed and one that was: both are fine, the index ends empty
    store.persistBatch(List.of(NostrEvent.of(id(6), ALICE, NOW, 5, List.of(List.of("e", id(1)), List.of("e", id(5))),
        "", SIG)), NOW);
    indexAll();
    assertEquals(0, indexRows());
    assertEquals(0, count("granite"));
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

  @Test
  void aSearchAsksForTheWordsTheContentWasCutInto() throws Exception {
    store = SqliteTenantStore.open(dir.resolve("t.db"), 1);
    store.persistBatch(List.of(note(1, ALICE, 1, "a ripe Banana-split, #0!"), note(2, BOB, 1, "banana bread"),
        note(3, ALICE, 1, "Cafe\u0301 au lait")), NOW);
    indexAll();
    assertEquals(1, count("banana-split")); // banana AND split, as the content was indexed
    assertEquals(1, count("split banana"));
    assertEquals(2, count("BANANA"));
    assertEquals(1, count("caf\u00e9")); // a combining accent and a precomposed one both fold to "cafe"
    assertEquals(1, count("cafe lang:en")); // key:value extensions are not words
    assertEquals(0, count("banana-cake"));
    assertEquals(0, count("#!"));
  }

  @Test
  void wordsNextToEscapedCharactersAreFound() throws Exception {
    store = SqliteTenantStore.open(dir.resolve("t.db"), 1);
    // the stored JSON escapes the quotes, the line break, the tab, the backslash and the control character
    store.persistBatch(List.of(note(1, ALICE, 1, "say \"granite\"\nthen\tschist\\quartz\u0001mica \u00e9t\u00e9 \ud83d\ude00 rock"),
        note(2, BOB, 1, "\"\"\\")), NOW);
    indexAll();
    for (String word : new String[] {"granite", "then", "schist", "quartz", "mica", "ete", "rock", "say"}) {
      assertEquals(1, count(word), word);
    }
    assertEquals(0, count("ngranite"));
    assertEquals(0, count("tschist"));
  }

  @Test
  void wordsGluedToCharactersTheTokenizerDoesNotKnowAreFound() throws Exception {
    store = SqliteTenantStore.open(dir.resolve("t.db"), 1);
    // U+1FAA8 (rock, Unicode 13) is a symbol to SearchWords; unicode61's Unicode 6.1 tables do not know it
    // and took it for part of the word when given the content itself
    store.persistBatch(List.of(note(1, ALICE, 1, "\ud83e\udea8rock cairn\ud83e\udea8"),
        note(2, BOB, 1, "\ud83d\ude00rock"), note(3, BOB, 1, "\ud83e\udea8")), NOW);
    indexAll();
    assertEquals(2, count("rock"));
    assertEquals(1, count("cairn"));
    assertEquals(2, count("\ud83e\udea8rock")); // the emoji is no word: this asks for "rock"
    assertEquals(0, count("\ud83e\udea8")); // no word at all: matches nothing
    assertEquals(2, entries("rock"));
  }

  @Test
  void wordsOfEveryScriptAreFound() throws Exception {
    store = SqliteTenantStore.open(dir.resolve("t.db"), 1);
    store.persistBatch(List.of(note(1, ALICE, 1, "\u0915\u0941\u091b \u0928\u0939\u0940\u0902"), // Hindi
        note(2, ALICE, 1, "\u0e01\u0e34\u0e19 \u0e02\u0e49\u0e32\u0e27"), // Thai
        note(3, BOB, 1, "\u0645\u064e\u0631\u062d\u064e\u0628\u064b\u0627"), // Arabic with harakat
        note(4, BOB, 1, "ab\uab70cd \u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8")), NOW);
    indexAll();
    assertEquals(1, count("\u0915\u0941\u091b")); // cut at its vowel sign on both sides
    assertEquals(0, count("\u0915\u0941\u091c"));
    assertEquals(1, count("\u0e02\u0e49\u0e32\u0e27"));
    assertEquals(1, count("\u0645\u064e\u0631\u062d\u064e\u0628\u064b\u0627"));
    assertEquals(1, count("AB\uab70CD"));
    assertEquals(1, count("\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8"));
  }

  @Test
  void aReadThatFailedLeavesItsReaderUsable() throws Exception {
    store = SqliteTenantStore.open(dir.resolve("t.db"), 1); // one reader: every query takes the same one
    store.persistBatch(List.of(note(1, ALICE, 1, "granite caf\u00e9")), NOW);
    indexAll();
    // an index whose tokenizer cuts words where SearchWords does not (at 'é', a separator here): a search
    // word becomes a phrase, which an index without positions refuses
    replaceIndex(store.file(), "CREATE VIRTUAL TABLE search_fts USING fts5(content, detail = none,"
        + " tokenize = \"unicode61 separators '\u00e9'\")",
        "INSERT INTO search_fts(rowid, content) VALUES (1, 'granite caf\u00e9')");
    StoreException failed = assertThrows(StoreException.class,
        () -> count("x\u00e9y"));
    assertTrue(String.valueOf(failed.getCause()).contains("phrase"), failed::toString);
    assertEquals(1, count("granite")); // the same statement again, on the same reader
  }

  @Test
  void anIndexWithPositionsIsBuiltAgainWithout() throws Exception {
    Path db = dir.resolve("t.db");
    // the search DB as migration 0001 left it: positions kept, one stale entry, 0002 not applied
    reopenWithIndex(db, List.of(note(1, ALICE, 1, "granite cairn"), note(2, BOB, 1, "granite ridge")),
        "CREATE VIRTUAL TABLE search_fts USING fts5(content, content = '', contentless_delete = 1,"
        + " tokenize = 'unicode61 remove_diacritics 2')",
        "INSERT INTO search_fts(rowid, content) VALUES (99, 'granite stale')",
        "DELETE FROM _migrations WHERE version = 2");
    assertEquals(2, count("granite"));
    assertEquals(2, entries("granite")); // the stale entry went with the old table
    assertEquals(1, count("ridge"));
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(
            "jdbc:sqlite:" + SqliteTenantStore.searchFileOf(db));
        java.sql.ResultSet rs = c.createStatement().executeQuery(
            "SELECT sql FROM sqlite_master WHERE name = 'search_fts'")) {
      assertTrue(rs.getString(1).contains("detail = none"), rs.getString(1));
    }
  }

  @Test
  void anIndexFilledWithTheContentAsItIsIsBuiltAgain() throws Exception {
    // the search DB as migration 0002 left it, filled with the content as it is: the emoji glued to "rock"
    reopenWithIndex(dir.resolve("t.db"), List.of(note(1, ALICE, 1, "\ud83e\udea8rock cairn"),
        note(2, BOB, 1, "granite ridge")),
        "CREATE VIRTUAL TABLE search_fts USING fts5(content, content = '', contentless_delete = 1,"
        + " detail = none, tokenize = 'unicode61 remove_diacritics 2')",
        "INSERT INTO search_fts(rowid, content) VALUES (1, '\ud83e\udea8rock cairn'), (2, 'granite ridge')",
        "DELETE FROM _migrations WHERE version = 3");
    assertEquals(1, count("rock"));
    assertEquals(1, count("cairn"));
    assertEquals(1, count("granite"));
    assertEquals(1, entries("granite")); // built again, once
  }
}
