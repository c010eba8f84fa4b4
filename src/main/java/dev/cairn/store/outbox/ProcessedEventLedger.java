package dev.cairn.store.outbox;

import dev.cairn.store.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The processed-event ledger (seed 000, dedup layer 3): {@code (event_id, handler)} is claimed before a
 * handler runs; success marks it done, failure releases it, both conditioned on the claim's
 * millisecond {@code started_at} (the owner token), so a stale worker cannot clobber a newer claim.
 * Blocking JDBC, inside the caller's transaction.
 */
public final class ProcessedEventLedger {
  /** Ledger rows are kept this long. */
  public static final long RETENTION_MS = 30L * 24 * 3600 * 1000;

  private ProcessedEventLedger() {}

  /** INSERT in_progress, or take over an in_progress claim older than {@code leaseMs}. */
  public static LedgerClaim claim(Sql sql, String eventId, String handler, long now, long leaseMs)
      throws SQLException {
    {
      PreparedStatement ins = sql.prepare("INSERT INTO processed_events(event_id, handler, status,"
        + " started_at) VALUES (?, ?, 'in_progress', ?) ON CONFLICT(event_id, handler) DO NOTHING");
      ins.setString(1, eventId);
      ins.setString(2, handler);
      ins.setLong(3, now);
      if (ins.executeUpdate() == 1) {
        return new LedgerClaim.Claimed(now);
      }
    }
    String status;
    long startedAt;
    {
      PreparedStatement sel = sql.prepare(
        "SELECT status, started_at FROM processed_events WHERE event_id = ? AND handler = ?");
      sel.setString(1, eventId);
      sel.setString(2, handler);
      try (ResultSet rs = sel.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("ledger row vanished for " + eventId + "/" + handler);
        }
        status = rs.getString(1);
        startedAt = rs.getLong(2);
      }
    }
    if ("done".equals(status)) {
      return new LedgerClaim.AlreadyDone();
    }
    if (startedAt > now - leaseMs || startedAt >= now) {
      return new LedgerClaim.HeldElsewhere(startedAt + leaseMs);
    }
    {
      PreparedStatement take = sql.prepare("UPDATE processed_events SET started_at = ?"
        + " WHERE event_id = ? AND handler = ? AND status = 'in_progress' AND started_at = ?");
      take.setLong(1, now);
      take.setString(2, eventId);
      take.setString(3, handler);
      take.setLong(4, startedAt);
      return take.executeUpdate() == 1 ? new LedgerClaim.Claimed(now) : new LedgerClaim.HeldElsewhere(now + leaseMs);
    }
  }

  /** Marks the claim done if it is still ours; false when another worker took it over. */
  public static boolean done(Sql sql, String eventId, String handler, long startedAt, long now)
      throws SQLException {
    {
      PreparedStatement ps = sql.prepare("UPDATE processed_events SET status = 'done', processed_at = ?"
        + " WHERE event_id = ? AND handler = ? AND status = 'in_progress' AND started_at = ?");
      ps.setLong(1, now);
      ps.setString(2, eventId);
      ps.setString(3, handler);
      ps.setLong(4, startedAt);
      return ps.executeUpdate() == 1;
    }
  }

  /** Releases the claim (the handler failed) if it is still ours; false otherwise. */
  public static boolean release(Sql sql, String eventId, String handler, long startedAt) throws SQLException {
    {
      PreparedStatement ps = sql.prepare("DELETE FROM processed_events"
        + " WHERE event_id = ? AND handler = ? AND status = 'in_progress' AND started_at = ?");
      ps.setString(1, eventId);
      ps.setString(2, handler);
      ps.setLong(3, startedAt);
      return ps.executeUpdate() == 1;
    }
  }

  /** Deletes up to {@code max} rows claimed more than 30 days ago. */
  public static int prune(Sql sql, long now, int max) throws SQLException {
    {
      PreparedStatement ps = sql.prepare("DELETE FROM processed_events WHERE (event_id, handler) IN"
        + " (SELECT event_id, handler FROM processed_events WHERE started_at < ? LIMIT ?)");
      ps.setLong(1, now - RETENTION_MS);
      ps.setInt(2, max);
      return ps.executeUpdate();
    }
  }
}
