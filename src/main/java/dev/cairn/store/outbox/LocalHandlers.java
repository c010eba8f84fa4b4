package dev.cairn.store.outbox;

import dev.cairn.store.Sql;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Handlers whose effect lives in the tenant DB itself: {@code search}, the NIP-50 full-text index. They
 * run on the engine's writer inside the transaction that claims the rows, for both outbox backends,
 * and their ledger is the row's own {@code local_done} flag, set in that transaction: each runs exactly
 * once per event with no claim/lease round trip and no ledger row of its own. A row whose handler fails
 * is rolled back to its savepoint and retried later. Handlers with an effect outside the DB (forward,
 * NATS consumers) keep the claim/done/release protocol of {@link ProcessedEventLedger}.
 */
public final class LocalHandlers {
  public static final String SEARCH = "search";
  public static final List<String> ALL = List.of(SEARCH);

  /** What the handlers did: rows they ran on, rows done already, rows they failed on. */
  public record Outcome(List<String> handlers, int ran, int skipped, int failed) {
    public static final Outcome NONE = new Outcome(List.of(), 0, 0, 0);
  }

  private LocalHandlers() {}

  /**
   * Runs {@code handlers} on every row not done yet (inside the caller's transaction) and marks them
   * done; returns the rows, those a handler failed on with their error. The batch runs under one
   * savepoint; only when something fails is it replayed with a savepoint per row, so one bad row
   * fails alone and the common case pays two statements per batch, not per row.
   */
  public static List<OutboxRow> run(Sql sql, List<OutboxRow> rows, List<String> handlers, int[] counts)
      throws SQLException {
    if (handlers.isEmpty() || rows.isEmpty()) {
      return rows;
    }
    sql.execute("SAVEPOINT local_batch");
    try {
      List<OutboxRow> out = runRows(sql, rows, handlers, counts, false);
      sql.execute("RELEASE local_batch");
      return out;
    } catch (SQLException | RuntimeException e) {
      sql.execute("ROLLBACK TO local_batch");
      sql.execute("RELEASE local_batch");
      counts[0] = 0;
      counts[1] = 0;
      counts[2] = 0;
      return runRows(sql, rows, handlers, counts, true);
    }
  }

  private static List<OutboxRow> runRows(Sql sql, List<OutboxRow> rows, List<String> handlers, int[] counts,
      boolean isolated) throws SQLException {
    List<OutboxRow> out = new ArrayList<>(rows.size());
    List<OutboxRow> ran = new ArrayList<>(rows.size());
    for (OutboxRow row : rows) {
      if (row.localDone()) {
        counts[1] += handlers.size();
        out.add(row);
        continue;
      }
      if (!isolated) {
        for (String handler : handlers) {
          effect(sql, handler, row);
        }
        counts[0] += handlers.size();
        out.add(row);
        ran.add(row);
        continue;
      }
      sql.execute("SAVEPOINT local_handlers");
      try {
        for (String handler : handlers) {
          effect(sql, handler, row);
        }
        sql.execute("RELEASE local_handlers");
        counts[0] += handlers.size();
        out.add(row);
        ran.add(row);
      } catch (SQLException | RuntimeException e) {
        sql.execute("ROLLBACK TO local_handlers");
        sql.execute("RELEASE local_handlers");
        counts[2]++;
        out.add(row.failedLocally(e.getMessage()));
      }
    }
    OutboxQueue.markLocalDone(sql, ran);
    return out;
  }

  private static void effect(Sql sql, String handler, OutboxRow row) throws SQLException {
    if (!SEARCH.equals(handler)) {
      throw new IllegalArgumentException("unknown local handler " + handler);
    }
    if (DomainEvent.EVENT_STORED.equals(row.type())) {
      SearchIndex.upsert(sql, row.seq());
    } else if (DomainEvent.EVENT_DELETED.equals(row.type())) {
      SearchIndex.remove(sql, row.seq());
    }
  }
}
