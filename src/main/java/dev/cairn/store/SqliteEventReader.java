package dev.cairn.store;

import dev.cairn.nostr.EventJson;
import dev.cairn.nostr.EventParser;
import dev.cairn.nostr.Filter;
import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.nostr.negentropy.VectorStorage;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

  /** Most values of a tag condition read one by one ({@link #perTagValue}). */
  static final int MAX_VALUES_READ_APART = 256;

  /** The most matches of a NIP-50 search read by arrival before its clause is read whole ({@link #searchRows}). */
  static final int SEARCH_WINDOW = 4096;
  // The SQLite search condition (SqlDialect#searchCondition) asked another way: the newest matches first,
  // those from a rowid on, and those in a range of rowids.
  private static final String SEARCH_NEWEST =
      "SELECT rowid FROM s.search_fts WHERE search_fts MATCH ? ORDER BY rowid DESC LIMIT ";
  private static final String SEARCH_FROM_ROWID =
      "e.seq IN (SELECT rowid FROM s.search_fts WHERE search_fts MATCH ? AND rowid >= ?)";
  private static final String SEARCH_ROWIDS_BETWEEN =
      "e.seq IN (SELECT rowid FROM s.search_fts WHERE search_fts MATCH ? AND rowid >= ? AND rowid < ?)";

  /**
   * One filter's WHERE clauses and its limit: one clause, or one per value of its tag condition
   * ({@link #perTagValue}), their rows merged here. {@code idCount}: how many ids the filter names (each
   * matches one row at most), -1 without ids.
   */
  record Part(List<FilterSql.Where> wheres, int limit, int idCount) {
    Part(FilterSql.Where where, int limit) {
      this(List.of(where), limit, -1);
    }

    /** Every row the filter's ids can match fits its limit: they are read whole, in no order. */
    boolean readWhole() {
      return idCount >= 0 && idCount <= limit && wheres.size() == 1 && wheres.get(0).search() == null;
    }
  }

  /** The parts of a REQ: null-free, limit-0 filters and filters that match nothing dropped. */
  static List<Part> parts(List<Filter> filters, long seqBelow, int defaultLimit, int maxLimit, long now) {
    List<Part> out = new ArrayList<>(filters.size());
    for (Filter f : filters) {
      int limit = FilterSql.limitOf(f, defaultLimit, maxLimit);
      if (limit <= 0) {
        continue;
      }
      List<FilterSql.Where> wheres = new ArrayList<>(1);
      for (Filter one : perTagValue(f)) {
        FilterSql.Where w = FilterSql.where(one, seqBelow, now);
        if (w != null) {
          wheres.add(w);
        }
      }
      if (!wheres.isEmpty()) {
        out.add(new Part(wheres, limit, f.ids() == null ? -1 : f.ids().size()));
      }
    }
    return out;
  }

  /**
   * {@code f} as one filter per value of its tag condition when every tag condition has several values
   * and nothing else picks the index (no ids, authors or search): each is then a walk of the tag index
   * in time order that the limit stops early, and the union of each value's newest {@code limit} holds
   * the filter's newest {@code limit}. SQLite has no merge of several values' runs through a join: it
   * read every event of the kinds asked (50 {@code #e} values of kind 7 in 200k events: 13 ms against
   * about 1), or of every value, and sorted them. The smallest condition is split; the others stay
   * conditions. Otherwise, or past {@link #MAX_VALUES_READ_APART} values, {@code f} itself.
   */
  static List<Filter> perTagValue(Filter f) {
    if (f.ids() != null || f.authors() != null || f.search() != null || f.tags().isEmpty()) {
      return List.of(f);
    }
    Map.Entry<Character, Set<String>> smallest = null;
    for (Map.Entry<Character, Set<String>> t : f.tags().entrySet()) {
      if (t.getValue().size() <= 1) {
        return List.of(f); // a single value drives the walk already (none: the filter matches nothing)
      }
      if (smallest == null || t.getValue().size() < smallest.getValue().size()) {
        smallest = t;
      }
    }
    if (smallest.getValue().size() > MAX_VALUES_READ_APART) {
      return List.of(f);
    }
    List<Filter> out = new ArrayList<>(smallest.getValue().size());
    for (String value : smallest.getValue()) {
      Map<Character, Set<String>> tags = new HashMap<>(f.tags());
      tags.put(smallest.getKey(), Set.of(value));
      out.add(new Filter(null, null, f.kinds(), tags, f.since(), f.until(), f.limit(), null));
    }
    return out;
  }

  /** Per filter newest first up to its limit; the union deduplicated and ordered the same way. */
  static List<StoredEvent> query(Sql sql, List<Part> parts) throws SQLException {
    if (parts.isEmpty()) {
      return List.of();
    }
    boolean tx = parts.size() > 1 || parts.get(0).wheres().size() > 1 || parts.get(0).wheres().get(0).search() != null;
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
   * there) or as a list; a part of several clauses keeps the newest {@code limit} of their rows.
   */
  private static List<StoredEvent> rows(Sql sql, Part p, Map<String, StoredEvent> byId) throws SQLException {
    List<StoredEvent> out;
    if (p.readWhole()) {
      out = read(sql, wholeSql(p.wheres().get(0)), p.wheres().get(0), null, p.idCount());
      out.sort(NEWEST_FIRST);
    } else if (p.wheres().size() == 1) {
      FilterSql.Where w = p.wheres().get(0);
      out = w.search() == null ? rows(sql, w, p.limit()) : searchRows(sql, w, p.limit());
    } else {
      Map<String, StoredEvent> merged = new HashMap<>();
      for (FilterSql.Where w : p.wheres()) {
        for (StoredEvent e : rows(sql, w, p.limit())) {
          merged.putIfAbsent(e.id(), e);
        }
      }
      out = new ArrayList<>(merged.values());
      out.sort(NEWEST_FIRST);
      if (out.size() > p.limit()) {
        out = out.subList(0, p.limit());
      }
    }
    if (byId == null) {
      return out;
    }
    for (StoredEvent e : out) {
      byId.putIfAbsent(e.id(), e);
    }
    return null;
  }

  /**
   * One clause's rows up to {@code limit}, newest first and ties by lowest id. SQLite would put every row
   * of an {@code ORDER BY created_at DESC, id} through a temp B-tree with its JSON (half the time of a
   * 500-row read), so the statement orders by time only, which the index walk gives for free, and ties
   * are ordered here (a merged clause's rows are sorted here whole: they come by seq). One row past the
   * limit tells whether the limit cut a group of equal created_at; if so, that group's first rows by id
   * are read again (one created_at: a few rows).
   */
  private static List<StoredEvent> rows(Sql sql, FilterSql.Where w, int limit) throws SQLException {
    List<StoredEvent> out = read(sql, historySql(w, limit + 1), w, null, limit + 1);
    if (w.merged()) {
      out.sort(NEWEST_FIRST); // they come by seq
    }
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
        // the part's limit in the text, not the rows wanted here: one statement per limit, not per cut
        List<StoredEvent> group = read(sql, boundarySql(w, limit), w, boundary, limit - first);
        out.addAll(group.subList(0, Math.min(group.size(), limit - first)));
      }
    }
    orderTies(out);
    return out;
  }

  /**
   * A NIP-50 clause (SQLite's FTS5 index, rowid = store seq). Asked whole, SQLite walks the time index
   * probing a list it first builds of every event the words match: 10-12 ms for a word found in half of
   * 130k events, growing with the store. Seqs follow arrival, and the index gives its newest rowids first
   * for almost nothing, so a common word's clause is read over its newest matches only (the window: four
   * times the limit, 256 to {@link #SEARCH_WINDOW}); then the matches that arrived before the window and
   * are dated at or after that answer's last row are read and merged in: nothing else can rank above it.
   * The clause is read whole when the words have fewer matches than the window (the list is short), when
   * their matches are sparse (the window would span more events than all the matches number), or when the
   * window yields fewer rows than the limit.
   */
  private static List<StoredEvent> searchRows(Sql sql, FilterSql.Where w, int limit) throws SQLException {
    String match = w.search().match();
    int n = Math.min(SEARCH_WINDOW, Math.max(256, 4 * (limit + 1)));
    long[] newest = newestMatches(sql, match, n);
    if (newest == null) {
      return rows(sql, w, limit);
    }
    long lowest = newest[1];
    double span = newest[0] - lowest + 1; // events the window spans; all the matches: about n * newest / span
    if (span * span > (double) n * newest[0]) {
      return rows(sql, w, limit);
    }
    List<StoredEvent> out = rows(sql, w.withSearch(new FilterSql.Search(SEARCH_FROM_ROWID, List.of(match, lowest), match)),
        limit);
    if (out.size() < limit) {
      return rows(sql, w, limit);
    }
    // The matches that arrived before the window and are dated at or after its last row: the events so
    // dated that arrived before it (a walk of the time index), then the index's matches among their seqs.
    FilterSql.Where datedLater = w.withSearch(null)
        .and(w.time() + " >= ? AND +e.seq < ?", out.get(limit - 1).createdAt(), lowest);
    long from = lowest;
    PreparedStatement ps = sql.prepare("SELECT e.seq FROM " + datedLater.from() + " WHERE " + datedLater.sql());
    FilterSql.bind(ps, datedLater.params());
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        from = Math.min(from, rs.getLong(1));
      }
    }
    if (from == lowest) {
      return out;
    }
    FilterSql.Where late = datedLater.withSearch(
        new FilterSql.Search(SEARCH_ROWIDS_BETWEEN, List.of(match, from, lowest), match));
    List<StoredEvent> older = read(sql, "SELECT e.seq, e.json FROM " + late.from() + " WHERE "
        + late.sql(), late, null, 16);
    if (older.isEmpty()) {
      return out;
    }
    // Exact: every match dated at or after the last row is in one list or the other, and a row the
    // window's limit dropped at that created_at has a higher id than every row kept there.
    out.addAll(older);
    out.sort(NEWEST_FIRST);
    return new ArrayList<>(out.subList(0, limit));
  }

  /** The highest and lowest rowid of the newest {@code n} matches of {@code match}, or null when it has fewer. */
  private static long[] newestMatches(Sql sql, String match, int n) throws SQLException {
    PreparedStatement ps = sql.prepare(SEARCH_NEWEST + n);
    ps.setString(1, match);
    long highest = -1;
    long lowest = -1;
    int seen = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        lowest = rs.getLong(1);
        if (seen++ == 0) {
          highest = lowest;
        }
      }
    }
    return seen < n ? null : new long[] {highest, lowest};
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

  /**
   * Runs {@code text} with {@code w}'s params, then {@code createdAt} when not null; {@code limit} only
   * sizes the list. Limits are written into the SQL text, never bound: SQLite (3.51, as the driver
   * bundles it) plans with a bound LIMIT's value, so binding that parameter, as every execution does,
   * has the statement compiled again at its next step. One tag value's read took 34 us that way and 14
   * with the limit in the text; {@link Sql}'s cache keeps a statement per limit value instead.
   */
  private static List<StoredEvent> read(Sql sql, String text, FilterSql.Where w, Long createdAt, int limit)
      throws SQLException {
    PreparedStatement ps = sql.prepare(text);
    FilterSql.bind(ps, w.params());
    if (createdAt != null) {
      ps.setLong(w.params().size() + 1, createdAt);
    }
    List<StoredEvent> out = new ArrayList<>(Math.min(limit, 512));
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(stored(rs.getLong(1), rs.getBytes(2)));
      }
    }
    return out;
  }

  /**
   * A result row ({@code seq, json}) as a StoredEvent, its id and created_at read from the JSON as the
   * store writes it ({@link EventJson#isEncoded}): two columns fewer through the driver per row, ~0.3 of
   * its ~1.2 us (measured on 500-row reads). JSON in any other form is parsed.
   */
  static StoredEvent stored(long seq, byte[] json) throws SQLException {
    if (EventJson.isEncoded(json)) {
      return new StoredEvent(seq, EventJson.idOf(json), EventJson.createdAtOf(json), json);
    }
    try {
      NostrEvent e = EventParser.parse(json);
      return new StoredEvent(seq, e.id(), e.createdAt(), json);
    } catch (InvalidMessageException e) {
      throw new SQLException("stored event " + seq + " does not parse: " + e.getMessage(), e);
    }
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
        + (limited ? " ORDER BY " + w.orderBy() : "") + " LIMIT " + (limited ? limit : max + 1);
    PreparedStatement ps = sql.prepare(text);
    FilterSql.bind(ps, w.params());
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
    PreparedStatement ps = sql.prepare("SELECT seq, json FROM events WHERE seq >= ? AND seq < ?"
        + " ORDER BY seq LIMIT " + max);
    ps.setLong(1, from);
    ps.setLong(2, to);
    List<StoredEvent> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(stored(rs.getLong(1), rs.getBytes(2)));
      }
    }
    return out;
  }

  /** Query plan lines for one part (its first clause; diagnostics and tests). */
  static List<String> explain(Sql sql, Part p) throws SQLException {
    List<String> out = new ArrayList<>();
    {
      FilterSql.Where w = p.wheres().get(0);
      PreparedStatement ps = sql.prepare("EXPLAIN QUERY PLAN " + (p.readWhole() ? wholeSql(w) : historySql(w, p.limit())));
      FilterSql.bind(ps, w.params());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString("detail"));
        }
      }
    }
    return out;
  }

  /** The first read of a part's history. */
  private static String historySql(FilterSql.Where w, int limit) {
    return w.merged() ? mergedSql(w, limit) : selectSql(w, limit);
  }

  private static String selectSql(FilterSql.Where w, int limit) {
    return "SELECT e.seq, e.json FROM " + w.from() + " WHERE " + w.sql()
        + " ORDER BY " + w.time() + " DESC LIMIT " + limit;
  }

  /**
   * A merged clause ({@link FilterSql.Where#merged}, several authors or kinds): the newest seqs first
   * (the sorter holds seq and created_at; the author index covers them), then the rows of those seqs, in
   * seq order. 300 authors of 200k events: a third of the time of sorting whole rows; three kinds, 40%.
   */
  private static String mergedSql(FilterSql.Where w, int limit) {
    return "SELECT r.seq, r.json FROM events r WHERE r.seq IN (SELECT e.seq FROM " + w.from()
        + " WHERE " + w.sql() + " ORDER BY " + w.time() + " DESC LIMIT " + limit + ")";
  }

  /**
   * Every row of a clause whose ids bound it within its limit ({@link Part#readWhole}), in no order: they
   * are sorted here. With {@code ORDER BY} SQLite put each row with its JSON through a temp B-tree: 20 ids
   * of the benchmark's mix took 62-67 us that way, 43 without (one thread, through the driver).
   */
  private static String wholeSql(FilterSql.Where w) {
    return "SELECT e.seq, e.json FROM " + w.from() + " WHERE " + w.sql();
  }

  /** The rows of one created_at of {@code w} by lowest id: the group a limit cut. */
  private static String boundarySql(FilterSql.Where w, int limit) {
    return "SELECT e.seq, e.json FROM " + w.from() + " WHERE " + w.sql()
        + " AND " + w.time() + " = ? ORDER BY e.id LIMIT " + limit;
  }

}
