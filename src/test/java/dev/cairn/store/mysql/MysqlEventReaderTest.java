package dev.cairn.store.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistResult;
import dev.cairn.store.StoredEvent;
import dev.cairn.store.SqliteTenantStore;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MysqlEventReader against a real server (MariaDB at 127.0.0.1:3306 as root, or
 * {@code CAIRN_TEST_MYSQL_URL}). The key check is parity: the same events written to MySQL (with
 * MysqlEventWriter) and to a SQLite SqliteTenantStore give the same REQ rows, in the same order, and the same
 * COUNT, for the QueryTest scenarios. A second tenant's rows in the same tables must never show.
 */
class MysqlEventReaderTest extends MysqlTestBase {
  private static final long NOW = 1_700_000_000L;
  /** Reads happen after the expiring event (NOW + 10) has expired, unless a scenario says otherwise. */
  private static final long LATER = NOW + 20;
  private static final String T = "t1";
  private static final String OTHER = "t2";
  private static final String ALICE = "a".repeat(64);
  private static final String BOB = "b".repeat(64);
  private static final String CAROL = "d".repeat(64);
  private static final int DEFAULT_LIMIT = 500;
  private static final int MAX_LIMIT = 5000;


  @TempDir Path dir;
  private String db;
  private Pool pool;
  private SqliteTenantStore sqlite;
  private final MysqlEventReader reader = new MysqlEventReader(T);



  @BeforeEach
  void createStores() throws Exception {
    db = mysql.createDatabase("_r");
    pool = mysql.pool(db, 4);
    await(new MysqlMigrator("db/mysql").migrate(pool));
    sqlite = SqliteTenantStore.open(dir.resolve("tenants/" + T + ".db"), 2);
    List<NostrEvent> events = events();
    List<PersistResult> onMysql = await(new MysqlEventWriter(T).persist(pool, events, NOW)).results();
    List<PersistResult> onSqlite = sqlite.persistBatch(events, NOW);
    assertEquals(onSqlite, onMysql, "both stores must have stored the same events under the same seqs");
    onMysql.forEach(r -> assertInstanceOf(PersistResult.Stored.class, r));
    // Another tenant in the same tables, matching most filters: scoping by tenant_id keeps it out.
    await(new MysqlEventWriter(OTHER).persist(pool, otherTenantEvents(), NOW));
  }

  @AfterEach
  void dropStores() throws Exception {
    if (sqlite != null) {
      sqlite.close();
    }
    if (pool != null) {
      await(pool.close());
    }
    mysql.dropDatabase(db);
  }

  @Test
  void idsAuthorsKindsAsSqlite() throws Exception {
    same(filter().ids(id(1), id(3), id(10), id(999)));
    same(filter().authors(ALICE));
    same(filter().authors(ALICE, BOB).limit(3));
    same(filter().kinds(7));
    same(filter().kinds(1).limit(4));
    // authors + kinds: the events_pubkey hint; replaceable/addressable kinds: the events_address hint.
    same(filter().authors(ALICE).kinds(1));
    same(filter().authors(ALICE, BOB).kinds(0, 30023));
    same(filter().ids(id(2), id(7)).kinds(1));
  }

  @Test
  void sinceUntilLimitAndOrderAsSqlite() throws Exception {
    same(filter());
    same(filter().since(150L).until(250L));
    same(filter().since(200L).until(200L)); // ties on created_at: lowest id first
    same(filter().limit(5));
    same(filter().limit(0));
    assertEquals(7, query(List.of(filter().limit(100).build()), Long.MAX_VALUE, DEFAULT_LIMIT, 7, LATER).size());
    assertEquals(ids(sqlite.query(List.of(filter().build()), Long.MAX_VALUE, 3, 7, LATER)),
        ids(query(List.of(filter().build()), Long.MAX_VALUE, 3, 7, LATER)));
  }

  @Test
  void tagFiltersAsSqlite() throws Exception {
    same(filter().tag('t', "nostr"));
    assertEquals(List.of(id(5), id(2), id(11), id(1)), ids(query(filter().tag('t', "nostr").kinds(1).until(300L))));
    same(filter().tag('t', "nostr").limit(2));
    same(filter().tag('t', "java", "nostr"));
    same(filter().tag('T', "nostr"));
    same(filter().tag('e', id(1)));
    same(filter().tag('p', BOB));
    same(filter().tag('t', "nostr").tag('p', BOB));
    same(filter().tag('t', "nostr").kinds(1).since(120L));
    same(filter().tag('t', "a", "b").authors(BOB));
    same(filter().tag('t', "nope"));
  }

  @Test
  void severalFiltersDeduplicatedAsSqlite() throws Exception {
    same(filter().authors(ALICE).limit(1), filter().kinds(7), filter().tag('t', "nostr").limit(2));
    same(filter().kinds(1), filter().tag('t', "nostr"), filter().ids(id(1), id(4)));
    same(filter().ids(), filter().kinds(7)); // a filter that matches nothing is dropped
  }

  @Test
  void expiredExcludedAndSeqBelowFloorAsSqlite() throws Exception {
    Filter all = filter().build();
    Filter nostr = filter().tag('t', "nostr").build();
    for (long now : new long[] {NOW, LATER}) {
      for (long seqBelow : new long[] {1, 6, 11, Long.MAX_VALUE}) {
        for (Filter f : List.of(all, nostr)) {
          assertEquals(ids(sqlite.query(List.of(f), seqBelow, DEFAULT_LIMIT, MAX_LIMIT, now)),
              ids(query(List.of(f), seqBelow, DEFAULT_LIMIT, MAX_LIMIT, now)), f + " below " + seqBelow + " at " + now);
          assertEquals(sqlite.count(List.of(f), seqBelow, now), await(reader.count(pool, List.of(f), seqBelow, now)));
        }
      }
    }
    assertTrue(ids(query(nostr)).stream().noneMatch(id(10)::equals), "expired event 10 is hidden");
    assertTrue(ids(query(List.of(nostr), Long.MAX_VALUE, DEFAULT_LIMIT, MAX_LIMIT, NOW)).contains(id(10)));
  }

  @Test
  void countsAsSqlite() throws Exception {
    sameCount(filter());
    sameCount(filter().limit(1)); // limits are ignored by COUNT
    sameCount(filter().tag('t', "nostr"));
    sameCount(filter().authors(ALICE).kinds(1), filter().tag('t', "nostr")); // overlap counted once
    sameCount(filter().ids());
    assertEquals(0L, await(reader.count(pool, List.of(), Long.MAX_VALUE, LATER)));
  }

  // --- the events

  /** Fixed cases (QueryTest's) then a generated tail with many created_at ties. */
  private static List<NostrEvent> events() {
    List<NostrEvent> out = new ArrayList<>();
    out.add(ev(1, ALICE, 100, 1, tag("t", "nostr"), tag("p", BOB)));
    out.add(ev(2, ALICE, 200, 1, tag("t", "nostr"), tag("t", "java")));
    out.add(ev(3, BOB, 200, 1, tag("T", "nostr")));
    out.add(ev(4, BOB, 150, 7, tag("e", id(1)), tag("p", ALICE)));
    out.add(ev(5, CAROL, 300, 1, tag("t", "nostr"), tag("e", id(2))));
    out.add(ev(6, ALICE, 250, 0));
    out.add(ev(7, ALICE, 260, 30023, tag("d", "slug"), tag("t", "java")));
    out.add(ev(8, BOB, 270, 30023, tag("d", "other")));
    out.add(ev(9, CAROL, 200, 7, tag("e", id(1))));
    out.add(ev(10, ALICE, 400, 1, tag("expiration", String.valueOf(NOW + 10)), tag("t", "nostr")));
    out.add(ev(11, BOB, 120, 1, tag("t", "nostr"), tag("p", CAROL)));
    String[] keys = {ALICE, BOB, CAROL};
    int[] kinds = {1, 7, 1111};
    for (int n = 12; n <= 40; n++) {
      out.add(ev(n, keys[n % 3], 100 + (n * 37 % 50), kinds[n % 3], tag("t", n % 2 == 0 ? "a" : "b"),
          tag("p", keys[(n + 1) % 3])));
    }
    return out;
  }

  private static List<NostrEvent> otherTenantEvents() {
    List<NostrEvent> out = new ArrayList<>();
    for (int n = 1001; n <= 1010; n++) {
      out.add(ev(n, ALICE, 100 + n % 300, n % 2 == 0 ? 1 : 7, tag("t", "nostr"), tag("p", BOB), tag("e", id(1))));
    }
    return out;
  }

  @SafeVarargs
  private static NostrEvent ev(long n, String pubkey, long createdAt, int kind, List<String>... tags) {
    return NostrEvent.of(id(n), pubkey, createdAt, kind, List.of(tags), "content " + n, "c".repeat(128));
  }

  private static List<String> tag(String... parts) {
    return Arrays.asList(parts);
  }

  private static String id(long n) {
    return String.format("%064x", n);
  }

  // --- parity

  /** REQ rows (seq, id, created_at, JSON) equal SQLite's, in order, and COUNT too. */
  private void same(FilterBuilder... filters) throws Exception {
    List<Filter> fs = Arrays.stream(filters).map(FilterBuilder::build).toList();
    List<String> expected = rows(sqlite.query(fs, Long.MAX_VALUE, DEFAULT_LIMIT, MAX_LIMIT, LATER));
    assertEquals(expected, rows(query(fs, Long.MAX_VALUE, DEFAULT_LIMIT, MAX_LIMIT, LATER)), fs.toString());
    sameCount(filters);
  }

  private void sameCount(FilterBuilder... filters) throws Exception {
    List<Filter> fs = Arrays.stream(filters).map(FilterBuilder::build).toList();
    assertEquals(sqlite.count(fs, Long.MAX_VALUE, LATER), await(reader.count(pool, fs, Long.MAX_VALUE, LATER)),
        "COUNT " + fs);
  }

  private List<StoredEvent> query(FilterBuilder f) throws Exception {
    return query(f.build());
  }

  private List<StoredEvent> query(Filter f) throws Exception {
    return query(List.of(f), Long.MAX_VALUE, DEFAULT_LIMIT, MAX_LIMIT, LATER);
  }

  private List<StoredEvent> query(List<Filter> fs, long seqBelow, int defaultLimit, int maxLimit, long now)
      throws Exception {
    return await(reader.query(pool, fs, seqBelow, defaultLimit, maxLimit, now));
  }

  private static List<String> ids(List<StoredEvent> events) {
    return events.stream().map(StoredEvent::id).toList();
  }

  private static List<String> rows(List<StoredEvent> events) {
    return events.stream()
        .map(e -> e.seq() + " " + e.id() + " " + e.createdAt() + " " + Arrays.hashCode(e.json())).toList();
  }

  private static FilterBuilder filter() {
    return new FilterBuilder();
  }

  /** Filters for the scenarios, without eight positional arguments each. */
  private static final class FilterBuilder {
    private Set<String> ids;
    private Set<String> authors;
    private Set<Integer> kinds;
    private final java.util.HashMap<Character, Set<String>> tags = new java.util.HashMap<>();
    private Long since;
    private Long until;
    private Integer limit;

    FilterBuilder ids(String... v) {
      ids = Set.of(v);
      return this;
    }

    FilterBuilder authors(String... v) {
      authors = Set.of(v);
      return this;
    }

    FilterBuilder kinds(Integer... v) {
      kinds = Set.of(v);
      return this;
    }

    FilterBuilder tag(char name, String... values) {
      tags.put(name, Set.of(values));
      return this;
    }

    FilterBuilder since(Long v) {
      since = v;
      return this;
    }

    FilterBuilder until(Long v) {
      until = v;
      return this;
    }

    FilterBuilder limit(Integer v) {
      limit = v;
      return this;
    }

    Filter build() {
      return new Filter(ids, authors, kinds, Map.copyOf(tags), since, until, limit, null);
    }
  }

  private static <T> T await(Future<T> f) throws Exception {
    return TestMysqlServer.await(f);
  }
}
