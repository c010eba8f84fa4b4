package dev.cairn.store.mysql;

import io.vertx.mysqlclient.MySQLBatchException;
import java.util.Map;
import java.util.TreeMap;

/**
 * The server's own message for a failed {@code executeBatch}: the MySQL client only says "Error occurs
 * during batch execution" and keeps the per-row errors aside, which is what an operator needs to read.
 */
final class BatchErrors {
  private BatchErrors() {}

  static String describe(Throwable e) {
    if (e instanceof MySQLBatchException b && !b.getIterationError().isEmpty()) {
      Map.Entry<Integer, Throwable> first = new TreeMap<>(b.getIterationError()).firstEntry();
      return "row " + (first.getKey() + 1) + " of the batch: " + first.getValue().getMessage()
          + (b.getIterationError().size() > 1 ? " (and " + (b.getIterationError().size() - 1) + " more)" : "");
    }
    return String.valueOf(e.getMessage());
  }
}
