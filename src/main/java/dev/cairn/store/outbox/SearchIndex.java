package dev.cairn.store.outbox;

import dev.cairn.nostr.EventParser;
import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.SearchWords;
import dev.cairn.store.Sql;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

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
      Pass pass = new Pass(sql);
      boolean more;
      if (build == null) {
        // A new index: build it from the stored events first, then follow the outbox from its current end.
        Long end = single(sql, "SELECT max(id) FROM t.event_queue");
        set(sql, "queue_cursor", end == null ? 0 : end);
        set(sql, "build_seq", 0);
        more = true;
      } else if (build >= 0) {
        buildStep(pass, build, maxRows);
        more = true; // the outbox rows that came meanwhile follow
      } else {
        more = queueStep(pass, maxRows) >= maxRows;
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

  private static void buildStep(Pass pass, long after, int maxRows) throws SQLException {
    Sql sql = pass.sql;
    PreparedStatement ps = sql.prepare("SELECT seq, json FROM t.events WHERE seq > ? ORDER BY seq LIMIT ?");
    ps.setLong(1, after);
    ps.setInt(2, maxRows);
    long last = after;
    int n = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        last = rs.getLong(1);
        pass.index(last, rs.getBytes(2));
        n++;
      }
    }
    set(sql, "build_seq", n < maxRows ? -1 : last);
  }

  private static int queueStep(Pass pass, int maxRows) throws SQLException {
    Sql sql = pass.sql;
    long cursor = state(sql, "queue_cursor");
    // the stored event's JSON comes with its row (null once it left the store: nothing to index then)
    PreparedStatement ps = sql.prepare("SELECT q.id, q.type, q.stored_seq, q.body, e.json FROM t.event_queue q"
        + " LEFT JOIN t.events e ON e.seq = q.stored_seq WHERE q.id > ? ORDER BY q.id LIMIT ?");
    ps.setLong(1, cursor);
    ps.setInt(2, maxRows);
    int n = 0;
    long last = cursor;
    List<Long> removed = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        last = rs.getLong(1);
        n++;
        String type = rs.getString(2);
        if (DomainEvent.EVENT_STORED.equals(type)) {
          long seq = rs.getLong(3);
          if (seq == 0) { // a row from before EventStored named its event: the body carries the seq
            pass.upsert(new io.vertx.core.json.JsonObject(rs.getString(4)).getLong("seq", 0L));
          } else {
            pass.index(seq, rs.getBytes(5));
          }
        } else if (DomainEvent.EVENT_DELETED.equals(type)) {
          removed.add(new io.vertx.core.json.JsonObject(rs.getString(4)).getLong("seq", 0L));
        }
      }
    }
    // After the inserts, in rowid order: FTS5 flushes its pending inserts to a new segment whenever a
    // rowid is not above the last one, so deletes of older events mixed among the inserts cost a segment
    // each (190 us per delete measured; 6 us this way). An event removed before this step read it was
    // not inserted above (its JSON was gone), so the order changes nothing in what the index holds.
    removed.sort(null);
    for (long seq : removed) {
      pass.remove(seq);
    }
    if (n > 0) {
      set(sql, "queue_cursor", last);
    }
    return n;
  }

  /**
   * The index changes of one step. Store seqs only grow, so an event above the highest seq in the index
   * ({@code top}) cannot be in it yet: it is inserted without the delete an upsert needs (a contentless
   * FTS5 delete costs as much as the insert). Only the build's overlap with the outbox, and replays of
   * rows from before EventStored named its event, take the delete.
   */
  private static final class Pass {
    final Sql sql;
    private long top;

    Pass(Sql sql) throws SQLException {
      this.sql = sql;
      Long highest = single(sql, "SELECT rowid FROM search_fts ORDER BY rowid DESC LIMIT 1");
      this.top = highest == null ? 0 : highest;
    }

    /** Indexes the stored event {@code seq}'s content (again); nothing when it is gone already. */
    void upsert(long seq) throws SQLException {
      PreparedStatement ps = sql.prepare("SELECT json FROM t.events WHERE seq = ?");
      ps.setLong(1, seq);
      byte[] json;
      try (ResultSet rs = ps.executeQuery()) {
        json = rs.next() ? rs.getBytes(1) : null;
      }
      index(seq, json);
    }

    /**
     * Indexes {@code json}'s content under {@code seq} (replacing what it had), or only drops the entry when
     * the event is gone ({@code json} null) or its content has no word. The content is read here, not with
     * SQLite's json_extract: that parsed every event's whole JSON twice and was most of the indexer's time.
     * The index is given the content as {@link SearchWords#forIndex} leaves it, so its tokenizer finds the
     * words a search is cut into and no others.
     */
    void index(long seq, byte[] json) throws SQLException {
      remove(seq);
      if (json == null) {
        return;
      }
      String content;
      try {
        content = EventParser.content(json);
      } catch (InvalidMessageException e) {
        throw new SQLException("stored event " + seq + " does not parse: " + e.getMessage(), e);
      }
      if (!SearchWords.hasWord(content)) { // no search can match it (a reaction's "+"): nothing to index
        return;
      }
      PreparedStatement ps = sql.prepare("INSERT INTO search_fts(rowid, content) VALUES (?, ?)");
      ps.setLong(1, seq);
      ps.setString(2, SearchWords.forIndex(content));
      ps.executeUpdate();
      top = Math.max(top, seq);
    }

    /** Drops the event's entry (nothing to do above the highest seq indexed). */
    void remove(long seq) throws SQLException {
      if (seq <= top) {
        sql.update("DELETE FROM search_fts WHERE rowid = ?", seq);
      }
    }
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
   * The FTS5 MATCH expression for a NIP-50 search string: every word ({@link SearchWords}) quoted, all
   * must match, so user input never reaches the FTS query syntax. Words are cut as the indexed content
   * was, so a quoted word is one token: the index keeps no positions and would refuse a phrase of several.
   * Null when the string has no word (the filter then matches nothing).
   */
  public static String matchExpression(String search) {
    List<String> words = SearchWords.ofSearch(search);
    return words.isEmpty() ? null
        : words.stream().map(w -> '"' + w + '"').collect(java.util.stream.Collectors.joining(" "));
  }
}
