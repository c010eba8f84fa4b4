package dev.cairn.store.mysql;

import static dev.cairn.store.mysql.TestMysqlServer.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.MigrationFiles;
import dev.cairn.store.PersistResult;
import dev.cairn.store.SqliteTenantStore;
import dev.cairn.store.StoredEvent;
import io.vertx.sqlclient.Pool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NIP-50 on MySQL against SQLite's FTS5 index: the same events written to both stores, the same
 * searches give the same events and counts, including words InnoDB would not index by itself (short
 * ones, stopwords), case and diacritics, an event removed by NIP-09 or replaced, and another tenant's
 * matching events in the same tables. Then the migration's backfill of search_docs gives the same.
 */
class MysqlSearchTest extends MysqlTestBase {
  private static final long NOW = 1_700_000_000L;
  private static final String T = "t1";
  private static final String ALICE = "a".repeat(64);
  private static final String BOB = "b".repeat(64);
  private static final String SIG = "c".repeat(128);
  /** Searches with their expected event numbers (checked on SQLite, then MySQL must agree). */
  private static final List<Object[]> SEARCHES = List.of(
      new Object[] {"banana", Set.of(11)},
      new Object[] {"BANANA split", Set.of(11)},
      new Object[] {"ripe", Set.of(11)},
      new Object[] {"the", Set.of(3)},
      new Object[] {"a", Set.of(11)},
      new Object[] {"of the", Set.of(3)},
      new Object[] {"cafe", Set.of(3, 4)},
      new Object[] {"CAFÉ", Set.of(3, 4)},
      new Object[] {"x", Set.of(4)},
      new Object[] {"uber", Set.of(10)},
      new Object[] {"don't", Set.of(9)}, // "don" and "t", as the content was cut
      new Object[] {"don", Set.of(9)},
      new Object[] {"日本語のテキスト", Set.of(5)},
      new Object[] {"apple", Set.of(2, 7)},
      new Object[] {"name", Set.of(7)},
      new Object[] {"lait au lang:fr", Set.of(4)},
      new Object[] {"cherry", Set.of()},
      new Object[] {"k:v", Set.of()});

  @TempDir Path dir;
  private String db;
  private Pool pool;
  private SqliteTenantStore sqlite;
  private final MysqlEventReader reader = new MysqlEventReader(T);

  @BeforeEach
  void write() throws Exception {
    db = mysql.createDatabase("_s");
    pool = mysql.pool(db, 2);
    await(new MysqlMigrator("db/mysql").migrate(pool));
    sqlite = SqliteTenantStore.open(dir.resolve("tenants/" + T + ".db"), 1);
    List<NostrEvent> batch = List.of(
        ev(1, ALICE, 100, 1, "a ripe Banana split"),
        ev(2, ALICE, 101, 1, "plain apple pie"),
        ev(3, BOB, 102, 1, "The café of the world"),
        ev(4, BOB, 103, 1, "CAFE au lait, x_y"),
        ev(5, BOB, 104, 1, "日本語のテキスト"),
        ev(6, ALICE, 105, 0, "{\"name\":\"banana\"}"),
        ev(7, ALICE, 106, 0, "{\"name\":\"apple\"}"), // replaces 6
        ev(8, ALICE, 107, 1, ""),
        ev(9, BOB, 108, 1, "don't stop"),
        ev(10, BOB, 109, 1, "über alles"),
        ev(11, ALICE, 110, 1, "a ripe banana SPLIT again"),
        // NIP-09: Alice deletes event 1.
        NostrEvent.of(id(12), ALICE, 111, 5, List.of(List.of("e", id(1))), "", SIG));
    writeBoth(batch);
    // Another tenant's banana in the same tables never shows.
    await(new MysqlEventWriter("t2").persist(pool, List.of(ev(100, ALICE, 100, 1, "banana the a")), NOW));
    while (sqlite.indexSearch(1000)) {
      // the SQLite index follows the outbox rows; MySQL's was written with the events
    }
  }

  private void writeBoth(List<NostrEvent> batch) throws Exception {
    List<PersistResult> onMysql = await(new MysqlEventWriter(T).persist(pool, batch, NOW)).results();
    assertEquals(sqlite.persistBatch(batch, NOW), onMysql);
    onMysql.forEach(r -> assertInstanceOf(PersistResult.Stored.class, r));
  }

  @AfterEach
  void drop() throws Exception {
    if (sqlite != null) {
      sqlite.close();
    }
    if (pool != null) {
      await(pool.close());
    }
    mysql.dropDatabase(db);
  }

  @Test
  void searchesAnswerAsOnSqlite() throws Exception {
    sameAsSqlite();
    // Removed events left the index with their rows; content-less ones never had one.
    assertEquals(List.of("7", "9", "10"), strings("SELECT seq FROM search_docs WHERE tenant_id = 't1'"
        + " AND seq IN (7, 9, 10) ORDER BY seq"));
    assertEquals(List.of(), strings("SELECT seq FROM search_docs WHERE tenant_id = 't1' AND seq IN (1, 6, 8)"));
  }

  @Test
  void theMigrationBackfillIndexesAsTheWriter() throws Exception {
    await(pool.query("DELETE FROM search_docs").execute());
    String script = new String(getClass().getClassLoader().getResourceAsStream("db/mysql/0002_search.sql")
        .readAllBytes(), StandardCharsets.UTF_8);
    List<String> statements = MigrationFiles.statements(script);
    await(pool.query(statements.get(statements.size() - 1)).execute());
    sameAsSqlite();
  }

  private void sameAsSqlite() throws Exception {
    for (Object[] s : SEARCHES) {
      String text = (String) s[0];
      List<Filter> f = List.of(search(text, null, null));
      Set<?> expected = (Set<?>) s[1];
      assertEquals(expected, numbers(sqlite.query(f, Long.MAX_VALUE, 500, 500, NOW)), "SQLite, " + text);
      assertEquals(expected, numbers(await(reader.query(pool, f, Long.MAX_VALUE, 500, 500, NOW))), "MySQL, " + text);
      assertEquals(sqlite.count(f, Long.MAX_VALUE, NOW), (long) await(reader.count(pool, f, Long.MAX_VALUE, NOW)),
          "COUNT " + text);
    }
    // With other conditions and a limit: newest first.
    List<Filter> bobsCafes = List.of(search("cafe", Set.of(BOB), 1));
    assertEquals(List.of(id(4)), sqlite.query(bobsCafes, Long.MAX_VALUE, 500, 500, NOW).stream().map(StoredEvent::id).toList());
    assertEquals(List.of(id(4)), await(reader.query(pool, bobsCafes, Long.MAX_VALUE, 500, 500, NOW)).stream()
        .map(StoredEvent::id).toList());
  }

  private List<String> strings(String sql) throws Exception {
    List<String> out = new ArrayList<>();
    await(pool.query(sql).execute()).forEach(r -> out.add(String.valueOf(r.getValue(0))));
    return out;
  }

  private static Set<Integer> numbers(List<StoredEvent> events) {
    Set<Integer> out = new java.util.HashSet<>();
    events.forEach(e -> out.add(Integer.parseInt(e.id(), 16)));
    return out;
  }

  private static Filter search(String text, Set<String> authors, Integer limit) {
    return new Filter(null, authors, null, java.util.Map.of(), null, null, limit, text);
  }

  private static NostrEvent ev(long n, String pubkey, long createdAt, int kind, String content) {
    return NostrEvent.of(id(n), pubkey, createdAt, kind, List.of(), content, SIG);
  }

  private static String id(long n) {
    return String.format("%064x", n);
  }
}
