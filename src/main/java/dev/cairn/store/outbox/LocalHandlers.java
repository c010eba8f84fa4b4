package dev.cairn.store.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Handlers whose effect lives in the tenant DB itself: {@code search}, the NIP-50 full-text index. They
 * run on the engine's writer inside the transaction that claims the rows, for both outbox backends:
 * the ledger row {@code (event_id, handler)} is written {@code done} in the same transaction as the
 * effect, so each runs exactly once per event without a claim/lease round trip, and a row whose
 * handler failed is rolled back to its savepoint and retried later. Handlers with an effect outside
 * the DB (forward, NATS consumers) keep the claim/done/release protocol of {@link ProcessedEventLedger}.
 */
public final class LocalHandlers {
  public static final String SEARCH = "search";
  public static final List<String> ALL = List.of(SEARCH);

  /** Per handler: rows it ran on, rows already done, rows it failed on. */
  public record Outcome(List<String> handlers, int ran, int skipped, int failed) {
    public static final Outcome NONE = new Outcome(List.of(), 0, 0, 0);
  }

  private LocalHandlers() {}

  /** Runs {@code handlers} on every row (inside the caller's transaction); returns the rows with their errors. */
  public static List<OutboxRow> run(Connection c, List<OutboxRow> rows, List<String> handlers, long now,
      int[] counts) throws SQLException {
    if (handlers.isEmpty() || rows.isEmpty()) {
      return rows;
    }
    List<OutboxRow> out = new ArrayList<>(rows.size());
    try (PreparedStatement ledger = c.prepareStatement("INSERT INTO processed_events(event_id, handler, status,"
            + " started_at, processed_at) VALUES (?, ?, 'done', ?, ?) ON CONFLICT(event_id, handler) DO NOTHING");
        Statement sp = c.createStatement()) {
      for (OutboxRow row : rows) {
        String error = null;
        for (String handler : handlers) {
          sp.execute("SAVEPOINT local_handler");
          try {
            boolean first = true;
            if (row.eventId() != null) {
              ledger.setString(1, row.eventId());
              ledger.setString(2, handler);
              ledger.setLong(3, now);
              ledger.setLong(4, now);
              first = ledger.executeUpdate() == 1;
            }
            if (first) {
              effect(c, handler, row);
              counts[0]++;
            } else {
              counts[1]++;
            }
            sp.execute("RELEASE local_handler");
          } catch (SQLException | RuntimeException e) {
            sp.execute("ROLLBACK TO local_handler");
            sp.execute("RELEASE local_handler");
            counts[2]++;
            error = handler + ": " + e.getMessage();
          }
        }
        out.add(error == null ? row : row.failedLocally(error));
      }
    }
    return out;
  }

  private static void effect(Connection c, String handler, OutboxRow row) throws SQLException {
    if (!SEARCH.equals(handler)) {
      throw new IllegalArgumentException("unknown local handler " + handler);
    }
    if (DomainEvent.EVENT_STORED.equals(row.type())) {
      SearchIndex.upsert(c, row.seq());
    } else if (DomainEvent.EVENT_DELETED.equals(row.type())) {
      SearchIndex.remove(c, row.seq());
    }
  }
}
