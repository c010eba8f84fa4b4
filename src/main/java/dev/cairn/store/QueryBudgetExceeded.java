package dev.cairn.store;

/**
 * A history query (REQ, COUNT) ran past {@code limits.query_budget} and the database stopped it (SQLite's
 * progress handler; MariaDB's max_statement_time, MySQL's MAX_EXECUTION_TIME). Not a store fault: the
 * connection it ran on is healthy again and back in the pool.
 */
public final class QueryBudgetExceeded extends StoreException {
  private final long budgetMillis;

  public QueryBudgetExceeded(long budgetMillis) {
    super("query ran past its budget of " + budgetMillis + " ms and was interrupted");
    this.budgetMillis = budgetMillis;
  }

  public long budgetMillis() {
    return budgetMillis;
  }
}
