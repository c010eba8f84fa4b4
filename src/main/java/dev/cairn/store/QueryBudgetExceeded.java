package dev.cairn.store;

/**
 * A history query (REQ, COUNT) ran past {@code limits.query_budget} and SQLite stopped it. Not a
 * store fault: the reader connection it ran on is healthy again and back in the pool.
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
