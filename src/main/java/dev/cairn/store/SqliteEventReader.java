package dev.cairn.store;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.Hex;
import dev.cairn.nostr.negentropy.VectorStorage;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The read path of a tenant's SQLite store (REQ history, COUNT, query plans), on a reader connection
 * the caller holds. The event JSON comes back as the stored bytes, never decoded into a String.
 */
final class SqliteEventReader {
  /** REQ order: newest first, equal created_at by lowest id. */
  private static final Comparator<StoredEvent> NEWEST_FIRST = (a, b) -> a.createdAt() != b.createdAt()
      ? Long.compare(b.createdAt(), a.createdAt())
      : a.id().compareTo(b.id());
  private static final Comparator<StoredEvent> BY_ID = Comparator.comparing(StoredEvent::id);
  /** Runs of equal created_at up to this long are put in order by insertion. */
  private static final int SHORT_RUN = 16;

  private SqliteEventReader() {}

  /** One filter's WHERE clause and its limit. */
  record Part(FilterSql.Where where, int limit) {}

  /** The parts of a REQ: null-free, limit-0 filters and filters that match nothing dropped. */
  static List<Part> parts(List<Filter> filters, long seqBelow, int defaultLimit, int maxLimit, long now) {
    List<Part> out = new ArrayList<>(filters.size());
    for (Filter f : filters) {
      int limit = FilterSql.limitOf(f, defaultLimit, maxLimit);
      if (limit <= 0) {
        continue;
      }
      FilterSql.Where w = FilterSql.where(f, seqBelow, now);
      if (w != null) {
        out.add(new Part(w, limit));
      }
    }
    return out;
  }

  /** Per filter newest first up to its limit; the union deduplicated and ordered the same way. */
  static List<StoredEvent> query(Sql sql, List<Part> parts) throws SQLException {
    if (parts.isEmpty()) {
      return List.of();
    }
    boolean tx = parts.size() > 1;
    if (tx) {
      sql.execute("BEGIN"); // one snapshot for the whole union
    }
    try {
      if (!tx) {
        return rows(sql, parts.get(0), null);
      }
      Map<String, StoredEvent> byId = new LinkedHashMap<>();
      for (Part p : parts) {
        rows(sql, p, byId);
      }
      List<StoredEvent> out = new ArrayList<>(byId.values());
      out.sort(NEWEST_FIRST);
      return out;
    } finally {
      if (tx) {
        sql.execute("COMMIT");
      }
    }
  }

  /**
   * The rows of one part, newest first and ties by lowest id, into {@code byId} (skipping ids already
   * there) or as a list. SQLite would put every row of an {@code ORDER BY created_at DESC, id} through a
   * temp B-tree with its JSON (half the time of a 500-row read), so the statement orders by time only,
   * which the index walk gives for free, and ties are ordered here. One row past the limit tells whether
   * the limit cut a group of equal created_at; if so, that group's first rows by id are read again (one
   * created_at: a few rows).
   */
  private static List<StoredEvent> rows(Sql sql, Part p, Map<String, StoredEvent> byId) throws SQLException {
    FilterSql.Where w = p.where();
    int limit = p.limit();
    List<StoredEvent> out = read(sql, selectSql(w), w, null, limit + 1);
    if (out.size() > limit) {
      long boundary = out.get(limit - 1).createdAt();
      boolean cut = out.get(limit).createdAt() == boundary;
      out.remove(limit);
      if (cut) {
        int first = limit - 1;
        while (first > 0 && out.get(first - 1).createdAt() == boundary) {
          first--;
        }
        out.subList(first, limit).clear();
        out.addAll(read(sql, boundarySql(w), w, boundary, limit - first));
      }
    }
    orderTies(out);
    if (byId == null) {
      return out;
    }
    for (StoredEvent e : out) {
      byId.putIfAbsent(e.id(), e);
    }
    return null;
  }

  /**
   * {@code rows} are newest first already (the index walk): only each run of equal created_at is put in
   * id order (most runs are one row), not the whole list sorted again (6% of the relay's CPU in the
   * query benchmark went to that sort).
   */
  private static void orderTies(List<StoredEvent> rows) {
    for (int i = 0, n = rows.size(); i < n; ) {
      long createdAt = rows.get(i).createdAt();
      int end = i + 1;
      while (end < n && rows.get(end).createdAt() == createdAt) {
        end++;
      }
      if (end - i > SHORT_RUN) {
        rows.subList(i, end).sort(BY_ID);
      } else {
        for (int k = i + 1; k < end; k++) { // insertion sort: runs are mostly 2 or 3 rows
          StoredEvent e = rows.get(k);
          int j = k;
          while (j > i && rows.get(j - 1).id().compareTo(e.id()) > 0) {
            rows.set(j, rows.get(j - 1));
            j--;
          }
          rows.set(j, e);
        }
      }
      i = end;
    }
  }

  /** Runs {@code text} with {@code w}'s params, then {@code createdAt} when not null, then the limit. */
  private static List<StoredEvent> read(Sql sql, String text, FilterSql.Where w, Long createdAt, int limit)
      throws SQLException {
    PreparedStatement ps = sql.prepare(text);
    FilterSql.bind(ps, w.params());
    int i = w.params().size() + 1;
    if (createdAt != null) {
      ps.setLong(i++, createdAt);
    }
    ps.setInt(i, limit);
    List<StoredEvent> out = new ArrayList<>(Math.min(limit, 512));
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(new StoredEvent(rs.getLong(1), Hex.encode(rs.getBytes(2)), rs.getLong(3), rs.getBytes(4)));
      }
    }
    return out;
  }

  /** NIP-45: how many distinct stored events match any filter (limits ignored). */
  static long count(Sql sql, List<FilterSql.Where> wheres) throws SQLException {
    if (wheres.isEmpty()) {
      return 0;
    }
    StringBuilder text = new StringBuilder("SELECT COUNT(*) FROM (");
    List<Object> params = new ArrayList<>();
    for (int i = 0; i < wheres.size(); i++) {
      if (i > 0) {
        text.append(" UNION ");
      }
      text.append("SELECT e.seq FROM ").append(wheres.get(i).from()).append(" WHERE ").append(wheres.get(i).sql());
      params.addAll(wheres.get(i).params());
    }
    text.append(')');
    {
      PreparedStatement ps = sql.prepare(text.toString());
      FilterSql.bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0L;
      }
    }
  }

  /**
   * NIP-77: the (created_at, id) items of the events matching {@code w}, at most {@code limit} of them
   * (the newest, as REQ picks them; negative: all). Reads at most {@code max + 1} rows, so a filter over
   * millions of events costs no more than the cap before it is refused; then counts them for the answer.
   */
  static SyncItems syncItems(Sql sql, FilterSql.Where w, int limit, int max) throws SQLException {
    boolean limited = limit >= 0 && limit <= max;
    String text = "SELECT e.created_at, e.id FROM " + w.from() + " WHERE " + w.sql()
        + (limited ? " ORDER BY " + w.orderBy() : "") + " LIMIT ?";
    PreparedStatement ps = sql.prepare(text);
    FilterSql.bind(ps, w.params());
    ps.setInt(w.params().size() + 1, limited ? limit : max + 1);
    VectorStorage.Builder items = VectorStorage.builder(Math.min(limited ? limit : max, 4096));
    int n = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        if (++n > max) {
          break;
        }
        items.add(rs.getLong(1), rs.getBytes(2));
      }
    }
    if (n > max) {
      // An explicit limit above the cap still returns at most limit rows: count what it would get.
      long matched = count(sql, List.of(w));
      return new SyncItems(null, limit >= 0 ? Math.min(matched, limit) : matched);
    }
    return new SyncItems(items.build(), n);
  }

  /** Stored events with {@code from <= seq < to} in seq order, at most {@code max} (a pod's catch-up read). */
  static List<StoredEvent> range(Sql sql, long from, long to, int max) throws SQLException {
    PreparedStatement ps = sql.prepare("SELECT seq, id, created_at, json FROM events WHERE seq >= ? AND seq < ?"
        + " ORDER BY seq LIMIT ?");
    ps.setLong(1, from);
    ps.setLong(2, to);
    ps.setInt(3, max);
    List<StoredEvent> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(new StoredEvent(rs.getLong(1), Hex.encode(rs.getBytes(2)), rs.getLong(3), rs.getBytes(4)));
      }
    }
    return out;
  }

  /** Query plan lines for one part (diagnostics and tests). */
  static List<String> explain(Sql sql, Part p) throws SQLException {
    List<String> out = new ArrayList<>();
    {
      PreparedStatement ps = sql.prepare("EXPLAIN QUERY PLAN " + selectSql(p.where()));
      FilterSql.bind(ps, p.where().params());
      ps.setInt(p.where().params().size() + 1, p.limit());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString("detail"));
        }
      }
    }
    return out;
  }

  private static String selectSql(FilterSql.Where w) {
    return "SELECT e.seq, e.id, e.created_at, e.json FROM " + w.from() + " WHERE " + w.sql()
        + " ORDER BY " + w.time() + " DESC LIMIT ?";
  }

  /** The rows of one created_at of {@code w} by lowest id: the group a limit cut. */
  private static String boundarySql(FilterSql.Where w) {
    return "SELECT e.seq, e.id, e.created_at, e.json FROM " + w.from() + " WHERE " + w.sql()
        + " AND " + w.time() + " = ? ORDER BY e.id LIMIT ?";
  }

}
