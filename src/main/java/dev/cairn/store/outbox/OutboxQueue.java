package dev.cairn.store.outbox;

import dev.cairn.store.Sql;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outbox table's claim and settle SQL (seed 000). Blocking JDBC for database-engine workers; every
 * method runs inside the caller's transaction. Times are epoch ms.
 */
public final class OutboxQueue {
  /** Done rows are kept this long, then pruned lazily. */
  public static final long DONE_RETENTION_MS = 30L * 24 * 3600 * 1000;
  /** The body of a row claimed without one. */
  public static final byte[] NO_BODY = new byte[0];

  /**
   * What a claim found: the rows now ours and when the next row is due (-1: none); {@code settled}: how
   * many rows were marked done in the claim's own transaction (no handler waits for them; they are not
   * in {@code rows}).
   */
  public record Claim(List<OutboxRow> rows, long nextDueMs, int settled) {
    public Claim(List<OutboxRow> rows, long nextDueMs) {
      this(rows, nextDueMs, 0);
    }
  }

  private OutboxQueue() {}

  /**
   * Claims up to {@code limit} due rows: processing rows whose claim is older than {@code leaseMs} (a
   * crashed relay or consumer) first, then pending rows with {@code available_at <= now}, in due order.
   * Sets {@code claimed_at = now}. Each walk stops at the limit on its index: the cost does not grow
   * with the backlog. With {@code withBody} an EventStored row's body is joined from the store (the
   * relay publishes it); without, rows carry no body (only local handlers run on them).
   */
  public static Claim claimDue(Sql sql, String tenant, long now, int limit, long leaseMs, boolean withBody)
      throws SQLException {
    List<OutboxRow> rows = new ArrayList<>();
    select(sql, tenant, "status = 'processing' AND claimed_at <= ? ORDER BY claimed_at", now - leaseMs, now, limit,
        withBody, rows);
    if (rows.size() < limit) {
      select(sql, tenant, "status = 'pending' AND available_at <= ? ORDER BY available_at, id", now, now,
          limit - rows.size(), withBody, rows);
    }
    if (!rows.isEmpty()) {
      update(sql, "status = 'processing', claimed_at = " + now, rows);
    }
    rows.sort(Comparator.comparingLong(OutboxRow::id));
    return new Claim(List.copyOf(rows), nextDue(sql, leaseMs));
  }

  /** The claim: the rows selected, in one UPDATE. */
  private static void select(Sql sql, String tenant, String where, long bound, long now, int limit,
      boolean withBody, List<OutboxRow> into) throws SQLException {
    {
      PreparedStatement ps = sql.prepare("SELECT id, event_id, type, body, attempts, stored_seq, created_at"
          + " FROM event_queue WHERE " + where + " LIMIT ?");
      PreparedStatement json = sql.prepare("SELECT coalesce((SELECT json FROM events WHERE seq = ?1),"
          + " (SELECT json FROM removed_events WHERE seq = ?1))");
      ps.setLong(1, bound);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String text = rs.getString(4);
          long seq = rs.getLong(6);
          byte[] body = NO_BODY;
          if (text.isEmpty()) {
            if (withBody) {
              body = storedBody(json, tenant, rs.getString(2), seq, rs.getLong(7));
            }
          } else {
            if (seq == 0) {
              seq = new io.vertx.core.json.JsonObject(text).getLong("seq", 0L);
            }
            body = text.getBytes(StandardCharsets.UTF_8);
          }
          into.add(new OutboxRow(rs.getLong(1), rs.getString(2), rs.getString(3), body, rs.getInt(5), now, seq));
        }
      }
    }
  }

  /** When the next row is due: the earliest pending row, or the earliest claim's lease end. Two index lookups. */
  private static long nextDue(Sql sql, long leaseMs) throws SQLException {
    long next = -1;
    {
      PreparedStatement ps = sql.prepare("SELECT (SELECT MIN(available_at) FROM event_queue"
        + " WHERE status = 'pending'), (SELECT MIN(claimed_at) FROM event_queue WHERE status = 'processing')");
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long pending = rs.getLong(1);
        if (!rs.wasNull()) {
          next = pending;
        }
        long claimed = rs.getLong(2);
        if (!rs.wasNull()) {
          next = next < 0 ? claimed + leaseMs : Math.min(next, claimed + leaseMs);
        }
      }
    }
    return next;
  }

  /** {@code UPDATE event_queue SET <set> WHERE id IN (rows)}: one statement for a batch. */
  private static int update(Sql sql, String set, List<OutboxRow> rows) throws SQLException {
    StringBuilder text = new StringBuilder("UPDATE event_queue SET ").append(set).append(" WHERE id IN (");
    for (int i = 0; i < rows.size(); i++) {
      text.append(i == 0 ? "" : ",").append(rows.get(i).id());
    }
    try (java.sql.Statement st = sql.connection().createStatement()) {
      return st.executeUpdate(text.append(')').toString());
    }
  }

  /**
   * The body of an EventStored row that names its event: the stored JSON, or the copy kept in
   * {@code removed_events} when the event left the store first. A row whose event is gone past the
   * feed's retention gets a null payload rather than blocking the queue.
   */
  private static byte[] storedBody(PreparedStatement json, String tenant, String eventId, long seq, long occurredAt)
      throws SQLException {
    byte[] payload;
    json.setLong(1, seq);
    try (ResultSet e = json.executeQuery()) {
      payload = e.next() ? e.getBytes(1) : null;
    }
    return DomainEvent.storedBody(eventId, tenant, seq, occurredAt, payload);
  }

  /** What a settle changed: rows that left the backlog (done or dead-lettered), and the dead-lettered among them. */
  public record Settled(int left, int deadLettered) {}

  /**
   * Applies each settlement if its claim is still ours. The DONE ones, nearly all of them, go in one
   * UPDATE per claim (a claim's rows share its {@code claimed_at}): a relayed batch is one statement.
   */
  public static Settled settle(Sql sql, List<Settlement> settlements) throws SQLException {
    int dead = 0;
    int left = 0;
    Map<Long, List<Long>> doneByClaim = new LinkedHashMap<>();
    PreparedStatement back = sql.prepare("UPDATE event_queue SET status = ?, attempts = ?,"
          + " available_at = ?, claimed_at = NULL, last_error = ? WHERE id = ? AND status = 'processing'"
          + " AND claimed_at = ?");
    for (Settlement s : settlements) {
      if (s.kind() == Settlement.Kind.DONE) {
        doneByClaim.computeIfAbsent(s.claimedAt(), k -> new ArrayList<>()).add(s.rowId());
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
        left += n;
      }
    }
    for (Map.Entry<Long, List<Long>> claim : doneByClaim.entrySet()) {
      StringBuilder text = new StringBuilder("UPDATE event_queue SET status = 'done', claimed_at = NULL,"
          + " last_error = NULL WHERE status = 'processing' AND claimed_at = ").append(claim.getKey())
          .append(" AND id IN (");
      List<Long> ids = claim.getValue();
      for (int i = 0; i < ids.size(); i++) {
        text.append(i == 0 ? "" : ",").append(ids.get(i));
      }
      try (Statement st = sql.connection().createStatement()) {
        left += st.executeUpdate(text.append(')').toString());
      }
    }
    return new Settled(left, dead);
  }

  /** Marks claimed rows done (their claim is ours: same transaction as the claim); returns how many. */
  public static int markDone(Sql sql, List<OutboxRow> rows) throws SQLException {
    return rows.isEmpty() ? 0 : update(sql, "status = 'done', claimed_at = NULL, last_error = NULL", rows);
  }

  /** Deletes up to {@code max} done rows older than the retention. */
  public static int pruneDone(Sql sql, long now, int max) throws SQLException {
    {
      PreparedStatement ps = sql.prepare("DELETE FROM event_queue WHERE id IN (SELECT id FROM event_queue"
        + " WHERE status = 'done' AND created_at < ? ORDER BY id LIMIT ?)");
      ps.setLong(1, now - DONE_RETENTION_MS);
      ps.setInt(2, max);
      return ps.executeUpdate();
    }
  }
}
