package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.store.QueryBudgetData;
import dev.cairn.store.SqliteTenantStore;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code limits.query_budget} end to end: a REQ or COUNT that runs past it is answered {@code CLOSED} with
 * the reason, counted in {@code cairn_query_budget_exceeded_total}, and the connection and the (single)
 * reader connection serve the next query; with the budget off the same query completes.
 */
/**
 * Both dialects: SQLite stops the query with its progress handler, MySQL/MariaDB on the server
 * (max_statement_time, MAX_EXECUTION_TIME).
 */
class QueryBudgetRelayTest {
  private static final int EVENTS = 30_000;
  private static final int HUGE = 1_000_000;
  private static final String OVER = "error: query exceeded limits.query_budget (20ms); narrow the filter";

  private static Path dataDir;

  /** The store is filled directly (like {@code cairn import --direct}): far faster than publishing. */
  @BeforeAll
  static void fill() throws Exception {
    dataDir = Files.createTempDirectory("cairn-qbudget");
    long now = Events.now();
    if (TestDialect.mysql()) {
      // A first start creates and migrates the tenant database; the events go in while it is stopped.
      relay("0s").close();
      TestDialect.persist(dataDir, "default", QueryBudgetData.events(EVENTS, now), now);
      return;
    }
    try (SqliteTenantStore s = SqliteTenantStore.open(dataDir.resolve("tenants/default.db"), 1)) {
      s.persistBatch(QueryBudgetData.events(EVENTS, now), now);
    }
  }

  @AfterAll
  static void clean() throws Exception {
    TestRelay.deleteTree(dataDir);
    TestDialect.drop(dataDir);
  }

  /**
   * Every query of the relay goes through one reader connection, so "the next query" reuses it (SQLite;
   * on MySQL the pool's connections all come back from a stopped statement).
   */
  private static TestRelay relay(String budget) throws Exception {
    return TestRelay.startOn(dataDir, new JsonObject()
        .put("store", new JsonObject().put("readers", 1))
        .put("limits", new JsonObject().put("query_budget", budget).put("max_limit", HUGE)));
  }

  /** Every event but one topic's: no single tag value drives the walk, so SQLite reads them all. */
  private static JsonObject expensive() {
    JsonArray topics = new JsonArray();
    for (int i = 0; i < 19; i++) {
      topics.add("topic" + i);
    }
    return new JsonObject().put("#t", topics).put("limit", HUGE);
  }

  private static JsonObject cheap() {
    return new JsonObject().put("ids", new JsonArray().add(String.format("%064x", 42L)));
  }

  @Test
  void aReqOrCountOverTheBudgetIsClosedAndTheNextQueryIsAnswered() throws Exception {
    try (TestRelay r = relay("20ms"); RelayClient c = r.connect()) {
      c.req("big", expensive());
      // Nothing before the CLOSED: the history is sent only once the whole query has run.
      JsonArray first = c.await(f -> "big".equals(f.getValue(1)));
      assertEquals(new JsonArray().add("CLOSED").add("big").add(OVER), first);

      List<JsonObject> one = c.query("small", cheap());
      assertEquals(1, one.size(), "the same connection (and reader) answers a cheap REQ at once");

      c.send(new JsonArray().add("COUNT").add("bigc").add(expensive()).add(new JsonObject().put("kinds",
          new JsonArray().add(1))));
      assertEquals(new JsonArray().add("CLOSED").add("bigc").add(OVER), c.await(f -> "bigc".equals(f.getValue(1))));

      c.send(new JsonArray().add("COUNT").add("smallc").add(cheap()));
      JsonArray count = c.await(f -> "smallc".equals(f.getValue(1)));
      assertEquals("COUNT", count.getString(0), count.encode());
      assertEquals(1, count.getJsonObject(2).getInteger("count"));

      assertTrue(r.metrics().contains("cairn_query_budget_exceeded_total{tenant=\"default\"} 2.0"),
          "both refusals counted: " + r.metrics().lines().filter(l -> l.contains("budget")).toList());
      // The REQ latency counts the answered REQ only (not the CLOSED one, not the COUNTs).
      assertTrue(r.metrics().lines().anyMatch(l -> l.equals("cairn_req_history_seconds_count 1")),
          r.metrics().lines().filter(l -> l.startsWith("cairn_req_history")).toList().toString());
    }
  }

  @Test
  void withTheBudgetOffTheSameQueriesComplete() throws Exception {
    try (TestRelay r = relay("0s"); RelayClient c = r.connect()) {
      assertEquals(EVENTS - EVENTS / 20, c.query("big", expensive()).size());
      c.send(new JsonArray().add("COUNT").add("bigc").add(expensive()).add(new JsonObject().put("kinds",
          new JsonArray().add(1))));
      JsonArray count = c.await(f -> "bigc".equals(f.getValue(1)));
      assertEquals("COUNT", count.getString(0), count.encode());
      assertEquals(EVENTS, count.getJsonObject(2).getInteger("count"));
    }
  }
}
