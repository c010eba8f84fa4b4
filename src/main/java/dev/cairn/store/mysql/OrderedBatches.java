package dev.cairn.store.mysql;

import dev.cairn.store.StoreException;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * Statements to run on one connection in the order they were added. Order matters to a write plan (a
 * row inserted earlier in a batch may be removed later in it), so statements are not regrouped; only
 * consecutive runs of the same statement go to the server as one {@code executeBatch}, which keeps a
 * batch of inserts to one call instead of one round trip each.
 */
final class OrderedBatches {
  private record Step(String sql, Tuple params) {}

  private final List<Step> steps = new ArrayList<>();

  void add(String sql, Tuple params) {
    steps.add(new Step(sql, params));
  }

  Future<Void> run(SqlConnection conn) {
    Future<Void> chain = Future.succeededFuture();
    int i = 0;
    while (i < steps.size()) {
      String sql = steps.get(i).sql();
      List<Tuple> group = new ArrayList<>();
      while (i < steps.size() && steps.get(i).sql().equals(sql)) {
        group.add(steps.get(i).params());
        i++;
      }
      chain = chain.compose(v -> conn.preparedQuery(sql).executeBatch(group).<Void>mapEmpty()
          .recover(e -> Future.failedFuture(new StoreException("\"" + sql + "\" failed on "
              + BatchErrors.describe(e), e))));
    }
    return chain;
  }
}
