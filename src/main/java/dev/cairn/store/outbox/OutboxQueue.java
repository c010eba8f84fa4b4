package dev.cairn.store.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The outbox table's claim and settle SQL (seed 000). Blocking JDBC for database-engine workers; every
 * method runs inside the caller's transaction. Times are epoch ms.
 */
public final class OutboxQueue {
  /** Done rows are kept this long, then pruned lazily. */
  public static final long DONE_RETENTION_MS = 30L * 24 * 3600 * 1000;

  /**
   * What a claim found: the rows now ours, rows still waiting, and when the next one is due (-1: none);
   * {@code local}: what the local handlers did with the rows ({@link LocalHandlers}), {@code settled}:
   * how many rows were marked done in the claim's own transaction.
   */
  public record Claim(List<OutboxRow> rows, long pending, long nextDueMs, LocalHandlers.Outcome local, int settled) {
    public Claim(List<OutboxRow> rows, long pending, long nextDueMs) {
      this(rows, pending, nextDueMs, LocalHandlers.Outcome.NONE, 0);
    }
  }

  private OutboxQueue() {}

  /**
   * Claims up to {@code limit} due rows: pending with {@code available_at <= now}, and processing rows
   * whose claim is older than {@code leaseMs} (a crashed relay or consumer). Sets {@code claimed_at = now}.
   */
  public static Claim claimDue(Connection c, String tenant, long now, int limit, long leaseMs) throws SQLException {
    List<OutboxRow> rows = new ArrayList<>();
    claim(c, tenant, "status = 'processing' AND claimed_at <= ?", now - leaseMs, now, limit, rows);
    if (rows.size() < limit) {
      claim(c, tenant, "status = 'pending' AND available_at <= ?", now, now, limit - rows.size(), rows);
    }
    rows.sort(Comparator.comparingLong(OutboxRow::id));
    long pending;
    long nextDue = -1;
    try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*),"
        + " MIN(CASE WHEN status = 'pending' THEN available_at ELSE claimed_at + ? END)"
        + " FROM event_queue WHERE status IN ('pending', 'processing')")) {
      ps.setLong(1, leaseMs);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        pending = rs.getLong(1);
        long min = rs.getLong(2);
        if (!rs.wasNull()) {
          nextDue = min;
        }
      }
    }
    return new Claim(List.copyOf(rows), pending, nextDue);
  }

  private static void claim(Connection c, String tenant, String where, long bound, long now, int limit,
      List<OutboxRow> into) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE event_queue SET status = 'processing', claimed_at = ?"
        + " WHERE id IN (SELECT id FROM event_queue WHERE " + where + " ORDER BY id LIMIT ?)"
        + " RETURNING id, event_id, type, body, attempts, stored_seq, payload, created_at");
        PreparedStatement json = c.prepareStatement("SELECT json FROM events WHERE seq = ?")) {
      ps.setLong(1, now);
      ps.setLong(2, bound);
      ps.setInt(3, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String body = rs.getString(4);
          long seq = rs.getLong(6);
          if (body.isEmpty()) {
            body = storedBody(json, tenant, rs.getString(2), seq, rs.getBytes(7), rs.getLong(8));
          } else if (seq == 0) {
            seq = new io.vertx.core.json.JsonObject(body).getLong("seq", 0L);
          }
          into.add(new OutboxRow(rs.getLong(1), rs.getString(2), rs.getString(3), body, rs.getInt(5), now, seq, null));
        }
      }
    }
  }

  /**
   * The body of an EventStored row that names its event: the stored JSON, or the copy kept when the
   * event left the store first. A row whose event is gone with no copy (written by no path of this
   * code) gets a null payload rather than blocking the queue.
   */
  private static String storedBody(PreparedStatement json, String tenant, String eventId, long seq, byte[] kept,
      long occurredAt) throws SQLException {
    byte[] payload = kept;
    if (payload == null) {
      json.setLong(1, seq);
      try (ResultSet e = json.executeQuery()) {
        payload = e.next() ? e.getBytes(1) : null;
      }
    }
    return payload == null
        ? DomainEvent.body(eventId, DomainEvent.EVENT_STORED, tenant, seq, occurredAt, "null")
        : DomainEvent.storedBody(eventId, tenant, seq, occurredAt, payload);
  }

  /** Applies each settlement if its claim is still ours; returns how many rows were dead-lettered. */
  public static int settle(Connection c, List<Settlement> settlements) throws SQLException {
    int dead = 0;
    try (PreparedStatement done = c.prepareStatement("UPDATE event_queue SET status = 'done', claimed_at = NULL,"
            + " last_error = NULL WHERE id = ? AND status = 'processing' AND claimed_at = ?");
        PreparedStatement back = c.prepareStatement("UPDATE event_queue SET status = ?, attempts = ?,"
            + " available_at = ?, claimed_at = NULL, last_error = ? WHERE id = ? AND status = 'processing'"
            + " AND claimed_at = ?")) {
      for (Settlement s : settlements) {
        if (s.kind() == Settlement.Kind.DONE) {
          done.setLong(1, s.rowId());
          done.setLong(2, s.claimedAt());
          done.executeUpdate();
          continue;
        }
        back.setString(1, s.kind() == Settlement.Kind.DEAD_LETTER ? "dead_lettered" : "pending");
        back.setInt(2, s.attempts());
        back.setLong(3, s.availableAt());
        back.setString(4, s.error());
        back.setLong(5, s.rowId());
        back.setLong(6, s.claimedAt());
        int n = back.executeUpdate();
        if (s.kind() == Settlement.Kind.DEAD_LETTER) {
          dead += n;
        }
      }
    }
    return dead;
  }

  /** Marks claimed rows done (their claim is ours: same transaction as the claim); returns how many. */
  public static int markDone(Connection c, List<OutboxRow> rows) throws SQLException {
    int n = 0;
    try (PreparedStatement done = c.prepareStatement("UPDATE event_queue SET status = 'done', claimed_at = NULL,"
        + " last_error = NULL WHERE id = ? AND status = 'processing' AND claimed_at = ?")) {
      for (OutboxRow r : rows) {
        done.setLong(1, r.id());
        done.setLong(2, r.claimedAt());
        n += done.executeUpdate();
      }
    }
    return n;
  }

  /** Deletes up to {@code max} done rows older than the retention. */
  public static int pruneDone(Connection c, long now, int max) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM event_queue WHERE id IN (SELECT id FROM event_queue"
        + " WHERE status = 'done' AND created_at < ? ORDER BY id LIMIT ?)")) {
      ps.setLong(1, now - DONE_RETENTION_MS);
      ps.setInt(2, max);
      return ps.executeUpdate();
    }
  }
}
