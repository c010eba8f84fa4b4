package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code limits.query_budget} at the store: a query that runs past its budget is stopped by SQLite and
 * throws {@link QueryBudgetExceeded}; the one reader connection it ran on answers the next query.
 */
class QueryBudgetTest {
  static final long NOW = 1_700_000_000L;
  static final int EVENTS = 30_000;
  /** Larger than the store: the expensive query reads every row. */
  static final int HUGE = 1_000_000;
  /** The expensive query takes a good second here: far past this on any machine. */
  static final long BUDGET_MS = 20;

  @TempDir static Path dir;
  static SqliteTenantStore store;

  @BeforeAll
  static void fill() {
    store = SqliteTenantStore.open(dir.resolve("tenants/t.db"), 1); // one reader: every query reuses it
    store.persistBatch(QueryBudgetData.events(EVENTS, NOW), NOW);
  }

  @AfterAll
  static void close() {
    store.close();
  }

  @Test
  void aReqOverItsBudgetIsStoppedAndTheReaderAnswersTheNextQuery() {
    QueryBudgetExceeded over = assertThrows(QueryBudgetExceeded.class,
        () -> store.query(List.of(QueryBudgetData.expensive()), Long.MAX_VALUE, HUGE, HUGE, NOW, BUDGET_MS));
    assertEquals(BUDGET_MS, over.budgetMillis());
    assertCheapQueriesWork();
  }

  @Test
  void aMultiFilterReqOverItsBudgetLeavesNoReadTransactionOpen() {
    // Several filters read in one transaction: the interruption must not leave it open on the reader.
    assertThrows(QueryBudgetExceeded.class, () -> store.query(List.of(QueryBudgetData.expensive(), Ev.ids(Ev.id(7))),
        Long.MAX_VALUE, HUGE, HUGE, NOW, BUDGET_MS));
    assertEquals(List.of(Ev.id(8), Ev.id(7)), store.query(List.of(Ev.ids(Ev.id(7)), Ev.ids(Ev.id(8))),
        Long.MAX_VALUE, HUGE, HUGE, NOW, BUDGET_MS).stream().map(StoredEvent::id).toList());
    assertCheapQueriesWork();
  }

  @Test
  void aCountOverItsBudgetIsStoppedToo() {
    assertThrows(QueryBudgetExceeded.class, () -> store.count(
        List.of(QueryBudgetData.expensive(), Ev.all(), Ev.kinds(1)), Long.MAX_VALUE, NOW, 1));
    assertCheapQueriesWork();
  }

  @Test
  void theBudgetHoldsOnWhicheverThreadRunsTheQuery() throws Exception {
    // Reader connections move between the pool's threads: SQLite calls the handler on the caller's.
    for (int i = 0; i < 3; i++) {
      CompletableFuture<Throwable> failed = new CompletableFuture<>();
      Thread t = new Thread(() -> {
        try {
          store.query(List.of(QueryBudgetData.expensive()), Long.MAX_VALUE, HUGE, HUGE, NOW, BUDGET_MS);
          failed.complete(null);
        } catch (Throwable e) {
          failed.complete(e);
        }
      }, "budget-" + i);
      t.start();
      assertInstanceOf(QueryBudgetExceeded.class, failed.get(30, TimeUnit.SECONDS));
    }
    assertCheapQueriesWork();
  }

  @Test
  void withoutABudgetTheSameQueriesComplete() {
    assertEquals(EVENTS - EVENTS / QueryBudgetData.TOPICS,
        store.query(List.of(QueryBudgetData.expensive()), Long.MAX_VALUE, HUGE, HUGE, NOW, 0).size());
    assertEquals(EVENTS, store.count(List.of(QueryBudgetData.expensive(), Ev.all(), Ev.kinds(1)), Long.MAX_VALUE, NOW, 0));
    assertCheapQueriesWork();
  }

  /** The single reader connection answers at once, with and without a budget (no stale interruption). */
  private static void assertCheapQueriesWork() {
    for (long budget : new long[] {0, 10_000}) {
      List<StoredEvent> one = store.query(List.of(Ev.ids(Ev.id(42))), Long.MAX_VALUE, HUGE, HUGE, NOW, budget);
      assertEquals(List.of(Ev.id(42)), one.stream().map(StoredEvent::id).toList());
      assertEquals(1, store.count(List.of(Ev.ids(Ev.id(42))), Long.MAX_VALUE, NOW, budget));
    }
  }
}
