package dev.cairn.store.mysql;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * Work on one pooled MySQL connection (a transaction, or statements that share a session), the connection
 * given an exception handler first: vertx-sql-client prints the stack trace of a held connection's failure
 * to stderr when the connection has none ({@code SqlConnectionBase.handleException}), so a MySQL that reset
 * its sockets mid-transaction put bare stack traces into the relay's log, lines that are no log record (and
 * no JSON with {@code log.json}). The failure still fails the work's future, which is where callers see it.
 */
final class PooledConnections {
  private static final Logger LOG = Logger.getLogger(PooledConnections.class.getName());

  private PooledConnections() {}

  /** {@code work} in a transaction ({@link Pool#withTransaction}). */
  static <T> Future<T> inTransaction(Pool pool, Function<SqlConnection, Future<T>> work) {
    return pool.withTransaction(conn -> work.apply(quiet(conn)));
  }

  /** {@code work} on one connection ({@link Pool#withConnection}). */
  static <T> Future<T> onConnection(Pool pool, Function<SqlConnection, Future<T>> work) {
    return pool.withConnection(conn -> work.apply(quiet(conn)));
  }

  /** A connection the caller closes. */
  static Future<SqlConnection> take(Pool pool) {
    return pool.getConnection().map(PooledConnections::quiet);
  }

  private static SqlConnection quiet(SqlConnection conn) {
    return conn.exceptionHandler(t -> LOG.fine(() -> "a pooled MySQL connection failed: " + t));
  }
}
