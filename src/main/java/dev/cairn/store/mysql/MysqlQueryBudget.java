package dev.cairn.store.mysql;

import dev.cairn.store.QueryBudgetExceeded;
import io.vertx.mysqlclient.MySQLException;
import java.util.Locale;

/**
 * {@code limits.query_budget} for one REQ or COUNT on MySQL/MariaDB: the server stops a statement that
 * runs past it, so a slow query costs the database no more than the budget (a client-side timer would
 * leave it running there). Each statement gets what is left of the budget when it starts, so a REQ of
 * several filters stays within one budget, as on SQLite.
 *
 * <ul>
 *   <li>MariaDB: {@code SET STATEMENT max_statement_time = <s> FOR SELECT ...}, error 1969 when stopped;
 *   <li>MySQL 8 and TiDB: the optimizer hint {@code SELECT /}{@code *+ MAX_EXECUTION_TIME(<ms>) *}{@code /},
 *       error 3024 (it applies to read-only SELECTs, which these are).
 * </ul>
 * The connection stays usable after either error, so it goes back to the pool as it came.
 */
final class MysqlQueryBudget {
  static final int MARIADB_INTERRUPTED = 1969;
  static final int MYSQL_TIME_EXCEEDED = 3024;
  /**
   * Interruptions that do not name their cause: ER_QUERY_INTERRUPTED, and MariaDB's handler error 188
   * ("interrupted by end user"), which is what a full-text search stopped by max_statement_time reports
   * instead of 1969. Taken for the budget only once the budget has run out (else an admin's KILL QUERY).
   */
  static final int QUERY_INTERRUPTED = 1317;
  static final int HANDLER_INTERRUPTED = 188;
  /** No budget ({@code budgetMillis <= 0}): statements run as written. */
  static final MysqlQueryBudget NONE = new MysqlQueryBudget(MysqlServerKind.MYSQL, 0);

  private final MysqlServerKind server;
  private final long budgetMillis;
  private final long deadlineNanos;

  private MysqlQueryBudget(MysqlServerKind server, long budgetMillis) {
    this.server = server;
    this.budgetMillis = budgetMillis;
    this.deadlineNanos = System.nanoTime() + budgetMillis * 1_000_000L;
  }

  /** A budget of {@code budgetMillis} from now ({@code <= 0}: none). */
  static MysqlQueryBudget start(MysqlServerKind server, long budgetMillis) {
    return budgetMillis <= 0 ? NONE : new MysqlQueryBudget(server, budgetMillis);
  }

  boolean limited() {
    return budgetMillis > 0;
  }

  /**
   * {@code select} (a statement starting with {@code SELECT}) limited to what is left of the budget.
   *
   * @throws QueryBudgetExceeded when nothing is left (an earlier statement of the same query used it up)
   */
  String apply(String select) {
    if (!limited()) {
      return select;
    }
    long leftMillis = (deadlineNanos - System.nanoTime()) / 1_000_000L;
    if (leftMillis <= 0) {
      throw new QueryBudgetExceeded(budgetMillis);
    }
    if (!select.regionMatches(true, 0, "SELECT ", 0, 7)) {
      throw new IllegalArgumentException("a query budget applies to a SELECT: " + select);
    }
    return server == MysqlServerKind.MARIADB
        ? String.format(Locale.ROOT, "SET STATEMENT max_statement_time = %.3f FOR %s", leftMillis / 1000.0, select)
        : "SELECT /*+ MAX_EXECUTION_TIME(" + leftMillis + ") */ " + select.substring(7);
  }

  /**
   * {@code e} as the reader should fail with: {@link QueryBudgetExceeded} when the server stopped the
   * statement for its time (or the budget was gone before it started), else null.
   */
  QueryBudgetExceeded exceeded(Throwable e) {
    if (!limited()) {
      return null;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof QueryBudgetExceeded q) {
        return q;
      }
      if (t instanceof MySQLException m && (m.getErrorCode() == MARIADB_INTERRUPTED
          || m.getErrorCode() == MYSQL_TIME_EXCEEDED
          || (m.getErrorCode() == QUERY_INTERRUPTED || m.getErrorCode() == HANDLER_INTERRUPTED)
              && System.nanoTime() - deadlineNanos >= 0)) {
        QueryBudgetExceeded over = new QueryBudgetExceeded(budgetMillis);
        over.addSuppressed(e);
        return over;
      }
    }
    return null;
  }
}
