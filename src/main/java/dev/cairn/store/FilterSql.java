package dev.cairn.store;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.Hex;
import dev.cairn.nostr.Kinds;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Translates one {@link Filter} into a WHERE clause over {@code events e} with bound parameters only,
 * for SQLite or (with a tenant) MySQL/MariaDB: see {@link SqlDialect}.
 */
public final class FilterSql {

  /**
   * {@code SELECT ... FROM <from> WHERE <sql> ORDER BY <orderBy>}; params bind in that order. The
   * selected row is always {@code e}; {@code time} is the created_at column the plan walks in order
   * ({@code e.created_at}, or {@code t.created_at} when a tag drives). {@code merged}: the plan enters
   * the author index ({@code pubkey, created_at}) at several authors, or the kind index at several
   * kinds, so their runs meet in a sorter. {@code search}: the NIP-50 condition, null without one.
   */
  public record Where(String from, String conditions, List<Object> conditionParams, Search search, String time,
      boolean merged) {
    /** The whole condition: {@code conditions}, then the search condition when there is one. */
    public String sql() {
      return search == null ? conditions : conditions + " AND " + search.condition();
    }

    /** The params of {@link #sql}, in order. */
    public List<Object> params() {
      if (search == null) {
        return conditionParams;
      }
      List<Object> all = new ArrayList<>(conditionParams.size() + search.params().size());
      all.addAll(conditionParams);
      all.addAll(search.params());
      return all;
    }

    /** NIP-01's order: newest first, ties by lowest id. */
    public String orderBy() {
      return time + " DESC, e.id ASC";
    }

    /** This clause with {@code condition} (its params {@code values}) added to its conditions. */
    Where and(String condition, Object... values) {
      List<Object> p = new ArrayList<>(conditionParams);
      p.addAll(List.of(values));
      return new Where(from, conditions + " AND " + condition, p, search, time, merged);
    }

    /** This clause with its search condition replaced by {@code other}. */
    Where withSearch(Search other) {
      return new Where(from, conditions, conditionParams, other, time, merged);
    }
  }

  /**
   * A NIP-50 condition, kept apart from the others (last in {@link Where#sql}) so that a reader may ask
   * it another way: its SQL, its params, and the dialect's match expression alone.
   */
  public record Search(String condition, List<Object> params, String match) {}

  static final String DEFAULT_FROM = "events e";
  static final String DEFAULT_TIME = "e.created_at";

  private FilterSql() {}

  /**
   * The clause for {@code filter}, or null when the filter can match nothing (an empty set in a
   * field, or a NIP-50 search without a word).
   */
  static Where where(Filter f, long seqBelow, long now) {
    return where(f, seqBelow, now, SqlDialect.SQLITE, null);
  }

  /**
   * A filter's limit: its own, or {@code defaultLimit} when absent, capped at {@code maxLimit}
   * (0 or less: the filter returns nothing). One definition for every dialect's REQ.
   */
  public static int limitOf(Filter f, int defaultLimit, int maxLimit) {
    return f.limit() == null ? Math.min(defaultLimit, maxLimit) : Math.min(f.limit(), maxLimit);
  }

  /**
   * {@link #where(Filter, long, long)} in {@code dialect}; {@code tenant} scopes every table for
   * {@link SqlDialect#MYSQL} (ignored for SQLite). Params are Strings, Integers, Longs and byte[].
   */
  public static Where where(Filter f, long seqBelow, long now, SqlDialect dialect, String tenant) {
    if (dialect.scopedByTenant() && tenant == null) {
      throw new IllegalArgumentException("a " + dialect + " filter needs a tenant id to scope its tables");
    }
    String match = f.search() == null ? null : dialect.searchQuery(f.search());
    if (f.search() != null && match == null) {
      return null;
    }
    if (isEmpty(f.ids()) || isEmpty(f.authors()) || isEmpty(f.kinds())) {
      return null;
    }
    for (Set<String> values : f.tags().values()) {
      if (values == null || values.isEmpty()) {
        return null;
      }
    }
    StringBuilder sql = new StringBuilder();
    List<Object> params = new ArrayList<>();
    String from = DEFAULT_FROM;
    String time = DEFAULT_TIME;
    Character driver = null;
    boolean byAuthorTime = false;
    if (f.ids() == null && f.authors() == null) {
      // Drive from the tag index (key, created_at) in time order: a LIMIT stops early even for a
      // popular tag. Only for a single value (several would need a merge and dedup: SQLite's reader
      // asks for each value apart, SqliteEventReader.perTagValue).
      for (Map.Entry<Character, Set<String>> t : f.tags().entrySet()) {
        if (t.getValue().size() == 1) {
          driver = t.getKey();
          from = dialect.tagDrivenFrom();
          time = "t.created_at";
          if (dialect.scopedByTenant()) {
            sql.append("t.tenant_id = ? AND ");
            params.add(tenant);
          }
          sql.append("t.k = ? AND ");
          params.add(TagKey.of(String.valueOf(driver), t.getValue().iterator().next()));
          break;
        }
      }
    } else if (f.ids() == null && f.kinds() != null) {
      // Authors and kinds. Without statistics the planner may prefer walking a whole kind in time
      // order: name the index. Replaceable and addressable kinds have an entry per (pubkey, kind, d);
      // for the rest the author's events are walked in time order, other kinds skipped.
      if (f.kinds().stream().allMatch(k -> Kinds.isReplaceable(k) || Kinds.isAddressable(k))) {
        from = dialect.eventsUsing("events_address");
        sql.append("e.d_tag IS NOT NULL AND ");
      } else {
        from = dialect.eventsUsing("events_pubkey");
        byAuthorTime = true;
      }
    }
    // Unary '+' keeps the planner off the rowid range and the expiration index: the selective
    // indexes are the ones on id, pubkey, kind, created_at and tags.
    if (dialect.scopedByTenant()) {
      sql.append("e.tenant_id = ? AND ");
      params.add(tenant);
    }
    String expiration = dialect.noIndex("e.expiration");
    sql.append(dialect.noIndex("e.seq")).append(" < ? AND (").append(expiration).append(" IS NULL OR ")
        .append(expiration).append(" > ?)");
    params.add(seqBelow);
    params.add(now);
    in(sql, params, "e.id", hexBytes(f.ids()));
    in(sql, params, "e.pubkey", hexBytes(f.authors()));
    in(sql, params, "e.kind", f.kinds());
    // On the column the plan walks: with a tag driving, t.created_at (the event's, copied into its index
    // entries) bounds the index range; on e.created_at it only filtered the rows the walk joined, so an
    // "until" deep in a popular tag's history read every newer entry first.
    if (f.since() != null) {
      sql.append(" AND ").append(time).append(" >= ?");
      params.add(f.since());
    }
    if (f.until() != null) {
      sql.append(" AND ").append(time).append(" <= ?");
      params.add(f.until());
    }
    // Ids or authors pick few rows: each is checked by a probe of the tag index's primary key (key,
    // created_at, seq). The set of every event with the value, as the condition would be read otherwise,
    // can be large however few rows it filters: a NIP-33 lookup (an author's kind 30023 with a "d" that
    // most authors use) read the whole set per query, 195 us against 14. Otherwise the walk is a tag's
    // or a kind's run in time order, and the other tags' sets are read once and probed per row.
    boolean probePerRow = f.ids() != null || f.authors() != null;
    for (Map.Entry<Character, Set<String>> t : f.tags().entrySet()) {
      if (t.getKey().equals(driver)) {
        continue;
      }
      sql.append(probePerRow
          ? " AND EXISTS (SELECT 1 FROM tag_index x WHERE "
          : " AND e.seq IN (SELECT x.seq FROM tag_index x WHERE ");
      if (dialect.scopedByTenant()) {
        sql.append("x.tenant_id = ? AND ");
        params.add(tenant);
      }
      sql.append("x.k");
      List<Long> keys = new ArrayList<>(t.getValue().size());
      for (String v : t.getValue()) {
        keys.add(TagKey.of(String.valueOf(t.getKey()), v));
      }
      inList(sql, params, keys);
      sql.append(probePerRow ? " AND x.created_at = e.created_at AND x.seq = e.seq)" : ")");
    }
    Search search = null;
    if (match != null) {
      // NIP-50: SQLite's FTS5 index (kept by seed 000's search handler) or MySQL's search_docs, by seq.
      search = new Search(dialect.searchCondition(), dialect.scopedByTenant() ? List.of(tenant, match) : List.of(match),
          match);
    }
    boolean merged = f.ids() == null && f.authors() != null && f.authors().size() > 1
        && (f.kinds() == null || byAuthorTime)
        || f.ids() == null && f.authors() == null && driver == null && match == null
        && f.kinds() != null && f.kinds().size() > 1;
    return new Where(from, sql.toString(), params, search, time, merged);
  }

  /** Ids and pubkeys are stored as 32 raw bytes. */
  private static List<byte[]> hexBytes(Set<String> hex) {
    if (hex == null) {
      return null;
    }
    List<byte[]> out = new ArrayList<>(hex.size());
    for (String h : hex) {
      out.add(Hex.decode(h));
    }
    return out;
  }

  private static boolean isEmpty(Set<?> s) {
    return s != null && s.isEmpty();
  }

  private static void in(StringBuilder sql, List<Object> params, String column, Collection<?> values) {
    if (values == null) {
      return;
    }
    sql.append(" AND ").append(column);
    inList(sql, params, values);
  }

  private static void inList(StringBuilder sql, List<Object> params, Collection<?> values) {
    if (values.size() == 1) {
      sql.append(" = ?");
      params.add(values.iterator().next());
      return;
    }
    sql.append(" IN (");
    boolean first = true;
    for (Object v : values) {
      sql.append(first ? "?" : ", ?");
      first = false;
      params.add(v);
    }
    sql.append(')');
  }

  static void bind(PreparedStatement ps, List<Object> params) throws SQLException {
    int i = 1;
    for (Object p : params) {
      if (p instanceof String s) {
        ps.setString(i++, s);
      } else if (p instanceof Integer n) {
        ps.setInt(i++, n);
      } else if (p instanceof Long n) {
        ps.setLong(i++, n);
      } else if (p instanceof byte[] b) {
        ps.setBytes(i++, b);
      } else {
        throw new IllegalArgumentException("unsupported parameter " + p);
      }
    }
  }
}
