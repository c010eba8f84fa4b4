package dev.cairn.store.outbox;

import dev.cairn.store.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code search} handler of the outbox (seed 000): the NIP-50 full-text index of a tenant, in its
 * own file ({@code <tenant>.search.db}, where this runs on a connection that attaches the tenant DB as
 * {@code t}). It applies the tenant's outbox rows in id order: EventStored indexes the stored content
 * (rowid = store seq), EventDeleted drops it. Its ledger is a cursor in the same file, committed with
 * the index changes, so each row is applied exactly once, on its own thread, never holding the
 * tenant's writer. A new index first builds itself from the stored events. Queries join the tenant's
 * events, so a deleted event never shows even before its EventDeleted is applied.
 */
public final class SearchIndex {
  /** The search DB's schema (its own migrations). */
  public static final String MIGRATIONS = "db/sqlite-search";
  private static final String CONTENT =
      "SELECT seq, json_extract(CAST(json AS TEXT), '$.content') FROM t.events WHERE seq = ?"
          + " AND coalesce(json_extract(CAST(json AS TEXT), '$.content'), '') <> ''";

  private SearchIndex() {}

  /**
   * Applies up to {@code maxRows} outbox rows (or, while building, indexes up to {@code maxRows} stored
   * events) in one transaction of the search DB; true when there may be more to do now.
   */
  public static boolean step(Sql sql, int maxRows) throws SQLException {
    sql.execute("BEGIN");
    boolean done = false;
    try {
      Long build = state(sql, "build_seq");
      boolean more;
      if (build == null) {
        // A new index: build it from the stored events first, then follow the outbox from its current end.
        Long end = single(sql, "SELECT max(id) FROM t.event_queue");
        set(sql, "queue_cursor", end == null ? 0 : end);
        set(sql, "build_seq", 0);
        more = true;
      } else if (build >= 0) {
        buildStep(sql, build, maxRows);
        more = true; // the outbox rows that came meanwhile follow
      } else {
        more = queueStep(sql, maxRows) >= maxRows;
      }
      sql.execute("COMMIT");
      done = true;
      return more;
    } finally {
      if (!done) {
        try {
          sql.execute("ROLLBACK");
        } catch (SQLException ignored) {
          // nothing to undo
        }
      }
    }
  }

  private static void buildStep(Sql sql, long after, int maxRows) throws SQLException {
    PreparedStatement ps = sql.prepare("SELECT seq FROM t.events WHERE seq > ? ORDER BY seq LIMIT ?");
    ps.setLong(1, after);
    ps.setInt(2, maxRows);
    long last = after;
    int n = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        last = rs.getLong(1);
        upsert(sql, last);
        n++;
      }
    }
    set(sql, "build_seq", n < maxRows ? -1 : last);
  }

  private static int queueStep(Sql sql, int maxRows) throws SQLException {
    long cursor = state(sql, "queue_cursor");
    PreparedStatement ps = sql.prepare("SELECT id, type, stored_seq, body FROM t.event_queue WHERE id > ?"
        + " ORDER BY id LIMIT ?");
    ps.setLong(1, cursor);
    ps.setInt(2, maxRows);
    int n = 0;
    long last = cursor;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        last = rs.getLong(1);
        n++;
        String type = rs.getString(2);
        if (DomainEvent.EVENT_STORED.equals(type)) {
          long seq = rs.getLong(3);
          if (seq == 0) {
            seq = new io.vertx.core.json.JsonObject(rs.getString(4)).getLong("seq", 0L);
          }
          upsert(sql, seq);
        } else if (DomainEvent.EVENT_DELETED.equals(type)) {
          remove(sql, new io.vertx.core.json.JsonObject(rs.getString(4)).getLong("seq", 0L));
        }
      }
    }
    if (n > 0) {
      set(sql, "queue_cursor", last);
    }
    return n;
  }

  /** Indexes the stored event's content (again: a keyed upsert); nothing when it is gone already. */
  static void upsert(Sql sql, long seq) throws SQLException {
    remove(sql, seq);
    PreparedStatement ps = sql.prepare("INSERT INTO search_fts(rowid, content) " + CONTENT);
    ps.setLong(1, seq);
    ps.executeUpdate();
  }

  /** Drops the event's entry. */
  static void remove(Sql sql, long seq) throws SQLException {
    sql.update("DELETE FROM search_fts WHERE rowid = ?", seq);
  }

  private static Long state(Sql sql, String key) throws SQLException {
    PreparedStatement ps = sql.prepare("SELECT v FROM search_state WHERE k = ?");
    ps.setString(1, key);
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getLong(1) : null;
    }
  }

  private static void set(Sql sql, String key, long value) throws SQLException {
    sql.update("INSERT INTO search_state(k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", key, value);
  }

  private static Long single(Sql sql, String query) throws SQLException {
    try (ResultSet rs = sql.prepare(query).executeQuery()) {
      if (rs.next()) {
        long v = rs.getLong(1);
        return rs.wasNull() ? null : v;
      }
      return null;
    }
  }

  /**
   * The FTS5 MATCH expression for a NIP-50 search string: every word quoted (all must match), so user
   * input never reaches the FTS query syntax; {@code key:value} extensions are ignored. Null when the
   * string has no word (the filter then matches nothing).
   */
  public static String matchExpression(String search) {
    List<String> terms = new ArrayList<>();
    for (String token : search.split("\\s+")) {
      if (token.isEmpty() || token.contains(":")) {
        continue;
      }
      StringBuilder word = new StringBuilder();
      token.codePoints().filter(Character::isLetterOrDigit).forEach(word::appendCodePoint);
      if (word.length() > 0) {
        terms.add('"' + word.toString().toLowerCase(Locale.ROOT) + '"');
      }
    }
    return terms.isEmpty() ? null : String.join(" ", terms);
  }
}
