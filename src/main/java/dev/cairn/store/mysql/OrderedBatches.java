package dev.cairn.store.mysql;

import dev.cairn.store.StoreException;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * Statements to run on one connection in the order they were added, as few round trips as the order
 * allows. Order matters to a write plan only around deletes (a row inserted earlier in a batch may be
 * removed later in it): inserts are collected per statement, in the order each statement first appeared
 * (so an event's row goes before its tag rows), and written as multi-row inserts ({@link MultiRowInsert})
 * before any other statement runs; other statements run in order, consecutive runs of one as one
 * {@code executeBatch}. A group commit of plain notes is then two statements, not one per row.
 */
final class OrderedBatches {
  private record Step(String sql, Tuple params) {}

  private final List<Step> steps = new ArrayList<>();

  void add(String sql, Tuple params) {
    steps.add(new Step(sql, params));
  }

  Future<Void> run(SqlConnection conn) {
    Future<Void> chain = Future.succeededFuture();
    java.util.Map<String, List<Tuple>> inserts = new java.util.LinkedHashMap<>();
    int i = 0;
    while (i < steps.size()) {
      String sql = steps.get(i).sql();
      if (sql.startsWith("INSERT")) {
        inserts.computeIfAbsent(sql, k -> new ArrayList<>()).add(steps.get(i).params());
        i++;
        continue;
      }
      chain = flush(chain, conn, inserts);
      List<Tuple> group = new ArrayList<>();
      while (i < steps.size() && steps.get(i).sql().equals(sql)) {
        group.add(steps.get(i).params());
        i++;
      }
      chain = chain.compose(v -> conn.preparedQuery(sql).executeBatch(group).<Void>mapEmpty()
          .recover(e -> Future.failedFuture(failure(sql, e))));
    }
    return flush(chain, conn, inserts);
  }

  /** Writes the collected inserts (each statement's rows together) after {@code chain}, and forgets them. */
  private static Future<Void> flush(Future<Void> chain, SqlConnection conn, java.util.Map<String, List<Tuple>> inserts) {
    for (java.util.Map.Entry<String, List<Tuple>> e : inserts.entrySet()) {
      String sql = e.getKey();
      List<Tuple> rows = e.getValue();
      chain = chain.compose(v -> MultiRowInsert.run(conn, sql, rows)
          .recover(x -> Future.failedFuture(failure(sql, x))));
    }
    inserts.clear();
    return chain;
  }

  private static StoreException failure(String sql, Throwable e) {
    return new StoreException("\"" + sql + "\" failed on " + BatchErrors.describe(e), e);
  }
}
