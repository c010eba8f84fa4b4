package dev.cairn.store;

import java.sql.Connection;
import java.sql.SQLException;
import org.sqlite.ProgressHandler;

/**
 * The time budget of the queries run on one reader connection. SQLite calls {@link #progress} every
 * {@link #VM_STEPS} virtual-machine steps on the thread that runs the statement; once the armed deadline
 * has passed it answers non-zero and SQLite stops the statement with SQLITE_INTERRUPT. A progress
 * handler rather than {@code sqlite3_interrupt} from a timer: it acts only on the statement of the query
 * that armed it, so a late timer can never hit the next query that got the connection from the pool.
 *
 * <p>One per reader connection, used by the one thread that holds the connection.
 */
final class ReadDeadline extends ProgressHandler {
  /**
   * Roughly 0.1 to 0.5 ms of VM work between checks: the callback is cheap next to that, and fine enough
   * for a budget in ms. A single long step (sorting a large temp b-tree) can overshoot the budget by its length.
   */
  static final int VM_STEPS = 10_000;

  private final Connection connection;
  private boolean installed;
  private boolean armed;
  private long deadlineNanos;
  private boolean expired;

  ReadDeadline(Connection connection) {
    this.connection = connection;
  }

  /**
   * Runs {@code work} on {@code sql} (this deadline's connection) within {@code budgetMillis} ({@code <= 0}:
   * no budget). Past it, throws {@link QueryBudgetExceeded} after dropping the connection's kept statements
   * and rolling back any transaction the work left open (a multi-filter REQ reads in one), so the
   * connection goes back to the pool as good as it came.
   */
  <T> T within(long budgetMillis, Sql sql, SqliteTenantStore.SqlWork<T> work) throws SQLException {
    if (budgetMillis <= 0) {
      return work.run(sql);
    }
    if (!installed) { // lazily: a relay with the budget off never pays for the callbacks
      ProgressHandler.setHandler(connection, VM_STEPS, this);
      installed = true;
    }
    expired = false;
    deadlineNanos = System.nanoTime() + budgetMillis * 1_000_000L;
    armed = true;
    try {
      T out = work.run(sql);
      if (expired) { // the work swallowed the interruption (a statement in a finally): still over budget
        throw new QueryBudgetExceeded(budgetMillis);
      }
      return out;
    } catch (SQLException | RuntimeException e) {
      if (!expired) {
        throw e;
      }
      QueryBudgetExceeded over = e instanceof QueryBudgetExceeded q ? q : new QueryBudgetExceeded(budgetMillis);
      if (over != e) {
        over.addSuppressed(e);
      }
      throw over;
    } finally {
      armed = false;
      if (expired) {
        // sqlite-jdbc finalizes a statement whose step fails with SQLITE_INTERRUPT: the kept ones of
        // this connection may be dead, so compile them afresh rather than fail the next query.
        sql.clear();
        rollbackQuietly(sql);
      }
    }
  }

  private static void rollbackQuietly(Sql sql) {
    try {
      sql.execute("ROLLBACK");
    } catch (SQLException ignored) {
      // no transaction was open: the interrupted statement ran in autocommit
    }
  }

  @Override
  protected int progress() {
    if (armed && System.nanoTime() - deadlineNanos > 0) {
      expired = true;
      return 1; // SQLITE_INTERRUPT for the running statement (and any the work starts after it)
    }
    return 0;
  }
}
