package dev.cairn.store.mysql;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/**
 * Runs many rows of one {@code INSERT ... VALUES (?, ...) [suffix]} as few multi-row statements
 * ({@code VALUES (...), (...), ...}): the MySQL client waits for each statement's answer before the next,
 * so a group commit of 50 events as single-row inserts was hundreds of round trips. Row counts are split
 * into powers of two (a batch of 50 is 32 + 16 + 2), so a connection prepares at most a dozen variants
 * of a statement and its prepared-statement cache keeps them; a statement also stops growing at
 * {@link #MAX_BYTES} of parameters (below MariaDB's 16 MB {@code max_allowed_packet}) and at MySQL's
 * 65,535 placeholders.
 */
final class MultiRowInsert {
  static final int MAX_ROWS = 512;
  static final long MAX_BYTES = 4L << 20;
  private static final int MAX_PLACEHOLDERS = 65_535;

  private MultiRowInsert() {}

  /** Inserts {@code rows} with {@code insertSql} (one {@code VALUES (...)} group), in order. */
  static Future<Void> run(SqlClient conn, String insertSql, List<Tuple> rows) {
    int values = insertSql.indexOf("VALUES (");
    if (values < 0) {
      throw new IllegalArgumentException("not an INSERT ... VALUES (...): " + insertSql);
    }
    int open = values + "VALUES ".length();
    int close = insertSql.indexOf(')', open);
    String head = insertSql.substring(0, open);
    String group = insertSql.substring(open, close + 1);
    String tail = insertSql.substring(close + 1);
    int perRow = (int) group.chars().filter(c -> c == '?').count();
    int cap = Math.max(1, Math.min(MAX_ROWS, MAX_PLACEHOLDERS / Math.max(1, perRow)));
    Future<Void> chain = Future.succeededFuture();
    int at = 0;
    while (at < rows.size()) {
      int n = Math.min(cap, rows.size() - at);
      long bytes = 0;
      for (int i = 0; i < n; i++) {
        bytes += size(rows.get(at + i));
        if (bytes > MAX_BYTES && i > 0) {
          n = i;
          break;
        }
      }
      n = Integer.highestOneBit(n); // a power of two: few distinct statements to prepare
      Tuple params = Tuple.tuple();
      for (int i = 0; i < n; i++) {
        Tuple row = rows.get(at + i);
        for (int k = 0; k < row.size(); k++) {
          params.addValue(row.getValue(k));
        }
      }
      String sql = head + (group + ", ").repeat(n - 1) + group + tail;
      chain = chain.compose(v -> conn.preparedQuery(sql).execute(params).mapEmpty());
      at += n;
    }
    return chain;
  }

  private static long size(Tuple row) {
    long s = 0;
    for (int k = 0; k < row.size(); k++) {
      Object v = row.getValue(k);
      s += v instanceof Buffer b ? b.length() : v instanceof String str ? str.length() : 8;
    }
    return s;
  }
}
