package dev.cairn.store.mysql;

import static dev.cairn.store.mysql.TestMysqlServer.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.Filter;
import dev.cairn.store.QueryBudgetExceeded;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code limits.query_budget} on MySQL/MariaDB: a REQ or COUNT that runs past it is stopped by the server
 * and fails with {@link QueryBudgetExceeded}; the pool (here of one connection, so the very connection
 * that was stopped) answers the next query; without a budget the same query completes.
 */
class MysqlQueryBudgetTest extends MysqlTestBase {
  private static final String T = "t1";
  private static final int EVENTS = 100_000;
  private static final long NOW = 2_000_000_000L;

  private static String db;
  private static Pool pool;
  private static MysqlServerKind server;
  private final MysqlEventReader reader = new MysqlEventReader(T);

  /** Once for the class (the tests only read): runs after MysqlTestBase reached the server. */
  @BeforeAll
  static void fill() throws Exception {
    db = mysql.createDatabase("_b");
    pool = mysql.pool(db, 1);
    await(new MysqlMigrator("db/mysql").migrate(pool));
    server = await(MysqlServerKind.of(pool));
    // Rows straight in SQL (the reader does not parse the JSON): far faster than the writer. Each event
    // has a t tag of 20 topics, and search text.
    await(pool.query("SET SESSION cte_max_recursion_depth = " + EVENTS).execute()
        .recover(e -> io.vertx.core.Future.succeededFuture())); // MySQL 8 only; MariaDB has max_recursive_iterations
    await(pool.query("SET SESSION max_recursive_iterations = " + EVENTS).execute()
        .recover(e -> io.vertx.core.Future.succeededFuture()));
    await(pool.query("INSERT INTO events(tenant_id, seq, id, pubkey, created_at, kind, json)"
        + " WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " + EVENTS + ")"
        + " SELECT '" + T + "', i, UNHEX(SHA2(i, 256)), UNHEX(SHA2(i % 50, 256)), 1000 + i, 1, '{}' FROM n").execute());
    await(pool.query("INSERT INTO tag_index(tenant_id, k, created_at, seq) SELECT tenant_id, "
        + "CASE seq % 20 " + topics() + " END, created_at, seq FROM events").execute());
    await(pool.query("INSERT INTO search_docs(tenant_id, seq, body) SELECT tenant_id, seq, 'zzcommon zzword'"
        + " FROM events").execute());
  }

  @AfterAll
  static void drop() throws Exception {
    if (pool != null) {
      await(pool.close());
      pool = null;
    }
    if (mysql != null) {
      mysql.dropDatabase(db);
    }
  }

  private static String topics() {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      out.append(" WHEN ").append(i).append(" THEN ").append(dev.cairn.store.TagKey.of("t", "topic" + i));
    }
    return out.toString();
  }

  /** 19 of the 20 topics: no single value drives the walk, so every matching row is read and sorted. */
  private static Filter expensive() {
    Set<String> values = new java.util.HashSet<>();
    for (int i = 0; i < 19; i++) {
      values.add("topic" + i);
    }
    return new Filter(null, null, null, Map.of('t', values), null, null, EVENTS, null);
  }

  private static Filter cheap() {
    return new Filter(null, null, Set.of(1), Map.of(), null, null, 1, null);
  }

  @Test
  void aReqOverTheBudgetIsStoppedAndThePoolAnswersTheNext() throws Exception {
    ExecutionException e = assertThrows(ExecutionException.class, () -> await(reader.query(pool,
        List.of(expensive()), Long.MAX_VALUE, 500, EVENTS, NOW, MysqlQueryBudget.start(server, 5))));
    QueryBudgetExceeded over = assertInstanceOf(QueryBudgetExceeded.class, e.getCause(), () -> String.valueOf(e.getCause()));
    assertEquals(5, over.budgetMillis());
    assertEquals(1, await(reader.query(pool, List.of(cheap()), Long.MAX_VALUE, 500, EVENTS, NOW,
        MysqlQueryBudget.start(server, 5_000))).size(), "the stopped connection answers the next query");
    assertEquals(EVENTS - EVENTS / 20, await(reader.query(pool, List.of(expensive()), Long.MAX_VALUE, 500, EVENTS,
        NOW, MysqlQueryBudget.start(server, 0))).size(), "without a budget it completes");
  }

  @Test
  void aCountOverTheBudgetIsStoppedToo() throws Exception {
    Filter search = new Filter(null, null, null, Map.of(), null, null, null, "common word");
    ExecutionException e = assertThrows(ExecutionException.class, () -> await(reader.count(pool,
        List.of(expensive(), search), Long.MAX_VALUE, NOW, MysqlQueryBudget.start(server, 5))));
    assertInstanceOf(QueryBudgetExceeded.class, e.getCause(), () -> String.valueOf(e.getCause()));
    assertEquals(EVENTS, (long) await(reader.count(pool, List.of(expensive(), search), Long.MAX_VALUE, NOW,
        MysqlQueryBudget.start(server, 60_000))));
  }

  @Test
  void aReqOfSeveralFiltersSharesOneBudget() throws Exception {
    // Each filter alone may fit in the budget; together they do not, and the transaction is rolled back.
    List<Filter> several = List.of(expensive(), expensive(), expensive(), expensive());
    ExecutionException e = assertThrows(ExecutionException.class, () -> await(reader.query(pool, several,
        Long.MAX_VALUE, 500, EVENTS, NOW, MysqlQueryBudget.start(server, 5))));
    assertInstanceOf(QueryBudgetExceeded.class, e.getCause(), () -> String.valueOf(e.getCause()));
    assertEquals(1, await(reader.query(pool, List.of(cheap()), Long.MAX_VALUE, 500, EVENTS, NOW)).size());
  }

  @Test
  void theServerIsDetectedFromItsVersion() {
    assertEquals(MysqlServerKind.MARIADB, MysqlServerKind.fromVersion("10.11.6-MariaDB-0+deb12u1"));
    assertEquals(MysqlServerKind.MYSQL, MysqlServerKind.fromVersion("8.0.36"));
    assertEquals(MysqlServerKind.MYSQL, MysqlServerKind.fromVersion("8.0.11-TiDB-v7.5.1"));
    assertTrue(MysqlQueryBudget.start(MysqlServerKind.MYSQL, 250).apply("SELECT 1")
        .startsWith("SELECT /*+ MAX_EXECUTION_TIME("));
    assertTrue(MysqlQueryBudget.start(MysqlServerKind.MARIADB, 250).apply("SELECT 1")
        .matches("SET STATEMENT max_statement_time = 0\\.2\\d\\d FOR SELECT 1"));
    assertEquals("SELECT 1", MysqlQueryBudget.start(MysqlServerKind.MARIADB, 0).apply("SELECT 1"));
  }
}
