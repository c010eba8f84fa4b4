package dev.cairn.store.feed;

import dev.cairn.store.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The SQL of {@code feed_events} (migration {@code 0003_feed.sql}), on a connection the caller got
 * from {@code SqliteTenantStore} (the writer under its lock, or a reader). Blocking; worker threads only.
 */
public final class FeedTable {
  private FeedTable() {}

  /**
   * Inserts {@code changes} in order in ONE transaction of its own (a retry-buffer flush); returns the
   * seq of the last row. Each statement is bounded by {@code timeoutSeconds}.
   */
  public static long insert(Sql sql, List<FeedChange> changes, int timeoutSeconds) throws SQLException {
    sql.execute("BEGIN IMMEDIATE");
    boolean done = false;
    try {
      long last = insertRows(sql, changes, timeoutSeconds);
      sql.execute("COMMIT");
      done = true;
      return last;
    } finally {
      if (!done) {
        try {
          sql.execute("ROLLBACK");
        } catch (SQLException ignored) {
          // no transaction left to undo
        }
      }
    }
  }

  /**
   * Inserts {@code changes} in order inside the caller's transaction; returns the seq of the last row.
   * A stored row names its event by store seq; its JSON is joined when the row is read. One batch (no
   * RETURNING, which made each row a query of its own): on the one writer connection, inside its
   * transaction, the rows take the seqs after the highest assigned, the last being the new highest.
   */
  public static long insertRows(Sql sql, List<FeedChange> changes, int timeoutSeconds) throws SQLException {
    PreparedStatement ps = sql.prepare("INSERT INTO feed_events"
        + "(ts, type, event_id, kind, pubkey, reason, store_seq) VALUES (?, ?, ?, ?, ?, ?, ?)");
    ps.setQueryTimeout(timeoutSeconds);
    for (FeedChange ch : changes) {
      ps.setLong(1, ch.ts());
      ps.setString(2, ch.type());
      ps.setString(3, ch.eventId());
      ps.setInt(4, ch.kind());
      ps.setString(5, ch.pubkey());
      ps.setString(6, ch.reason());
      if (ch.storeSeq() > 0) {
        ps.setLong(7, ch.storeSeq());
      } else {
        ps.setNull(7, java.sql.Types.INTEGER);
      }
      ps.addBatch();
    }
    if (!changes.isEmpty()) {
      ps.executeBatch();
    }
    return highSeq(sql);
  }

  /**
   * Rows with {@code seq > after}, oldest first, at most {@code limit}, narrowed by {@code kinds}
   * and {@code authors} (empty: no narrowing). One snapshot for the rows and the high seq.
   */
  public static FeedPage page(Sql sql, long after, int limit, Set<Integer> kinds, Set<String> authors)
      throws SQLException {
    // A stored row joins its event's JSON: from the store, or from removed_events once it left the
    // store (rows of older versions carry it in f.json).
    StringBuilder text = new StringBuilder("SELECT f.seq, f.ts, f.type, f.event_id, f.kind, f.pubkey, f.reason,"
        + " coalesce(f.json, e.json, r.json) FROM feed_events f LEFT JOIN events e ON e.seq = f.store_seq"
        + " LEFT JOIN removed_events r ON r.seq = f.store_seq WHERE f.seq > ?");
    if (!kinds.isEmpty()) {
      text.append(" AND f.kind IN (").append("?,".repeat(kinds.size() - 1)).append("?)");
    }
    if (!authors.isEmpty()) {
      text.append(" AND f.pubkey IN (").append("?,".repeat(authors.size() - 1)).append("?)");
    }
    // the limit in the text, not bound: SQLite compiles a statement again after each bind of its LIMIT
    // (SqliteEventReader.read), which a live session's read per commit would pay every time
    text.append(" ORDER BY f.seq LIMIT ").append(limit);
    sql.execute("BEGIN");
    try {
      List<FeedRow> rows = new ArrayList<>();
      {
      PreparedStatement ps = sql.prepare(text.toString());
        int i = 1;
        ps.setLong(i++, after);
        for (int k : kinds) {
          ps.setInt(i++, k);
        }
        for (String a : authors) {
          ps.setString(i++, a);
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            // a stored row's frame is its event's JSON: its id and pubkey columns are not read (two
            // 64-character strings per row were a third of a replay's read)
            String type = rs.getString(3);
            rows.add(FeedChange.STORED.equals(type)
                ? new FeedRow(rs.getLong(1), rs.getLong(2), type, null, 0, null, null, rs.getBytes(8))
                : new FeedRow(rs.getLong(1), rs.getLong(2), type, rs.getString(4), rs.getInt(5), rs.getString(6),
                    rs.getString(7), null));
          }
        }
      }
      boolean full = rows.size() >= limit;
      long scanned = full ? rows.get(rows.size() - 1).seq() : Math.max(after, highSeq(sql));
      if (!rows.isEmpty()) {
        scanned = Math.max(scanned, rows.get(rows.size() - 1).seq());
      }
      return new FeedPage(List.copyOf(rows), full, scanned);
    } finally {
      sql.execute("COMMIT");
    }
  }

  /** Oldest retained and highest assigned seq: two index endpoint lookups, no scan. */
  public static FeedBounds bounds(Sql sql) throws SQLException {
    long high = highSeq(sql);
    try (ResultSet rs = sql.prepare("SELECT MIN(seq) FROM feed_events").executeQuery()) {
      long min = rs.next() ? rs.getLong(1) : 0;
      boolean none = min == 0;
      return new FeedBounds(none ? high + 1 : min, high);
    }
  }

  /** Highest seq ever assigned (AUTOINCREMENT never reuses one), 0 when none. */
  public static long highSeq(Sql sql) throws SQLException {
    try (ResultSet rs = sql.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'feed_events'").executeQuery()) {
      return rs.next() ? rs.getLong(1) : 0L;
    }
  }

  /**
   * One retention batch: deletes at most {@code batch} rows with {@code ts < cutoffMs} (autocommit:
   * its own short transaction). Returns how many rows went.
   */
  public static int sweepBatch(Sql sql, long cutoffMs, int batch) throws SQLException {
    // the JSON kept for events that left the store goes with the rows that could show it
    sql.update("DELETE FROM removed_events WHERE seq IN (SELECT seq FROM removed_events WHERE removed_at < ?"
        + " ORDER BY removed_at LIMIT ?)", cutoffMs, batch);
    return sql.update(
        "DELETE FROM feed_events WHERE seq IN (SELECT seq FROM feed_events WHERE ts < ? ORDER BY ts LIMIT ?)",
        cutoffMs, batch);
  }

}
