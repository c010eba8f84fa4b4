package dev.cairn.store.mysql;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.Hex;
import dev.cairn.store.FilterSql;
import dev.cairn.store.SqlDialect;
import dev.cairn.store.StoredEvent;
import dev.cairn.store.SyncItems;
import dev.cairn.nostr.negentropy.VectorStorage;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The read path of one tenant on MySQL/MariaDB (REQ history and NIP-45 COUNT), non-blocking on the
 * vertx-mysql-client. Same answers as the SQLite reader: the WHERE clauses come from the one
 * {@link FilterSql} in {@link SqlDialect#MYSQL}, scoped by tenant_id.
 */
public final class MysqlEventReader {
  /** As SQLite's reader: created_at descending, then id ascending (hex order = byte order). */
  private static final Comparator<StoredEvent> NEWEST_FIRST =
      Comparator.comparingLong(StoredEvent::createdAt).reversed().thenComparing(StoredEvent::id);

  private final String tenantId;

  public MysqlEventReader(String tenantId) {
    if (tenantId == null || tenantId.isEmpty()) {
      throw new IllegalArgumentException("MysqlEventReader needs a tenant id");
    }
    this.tenantId = tenantId;
  }

  /** One filter's WHERE clause and its limit. */
  private record Part(FilterSql.Where where, int limit) {}

  /**
   * Per filter the newest events up to its limit ({@code defaultLimit} when absent, capped at
   * {@code maxLimit}, 0 = none), seq below {@code seqBelow}, not expired at {@code now}; the union
   * deduplicated and ordered newest first. Fails (never throws) for a filter MySQL cannot answer.
   */
  public Future<List<StoredEvent>> query(Pool pool, List<Filter> filters, long seqBelow, int defaultLimit,
      int maxLimit, long now) {
    return query(pool, filters, seqBelow, defaultLimit, maxLimit, now, MysqlQueryBudget.NONE);
  }

  /**
   * As {@link #query(Pool, List, long, int, int, long)} within {@code budget}: fails with
   * {@link dev.cairn.store.QueryBudgetExceeded} when the server stopped a statement for it.
   */
  Future<List<StoredEvent>> query(Pool pool, List<Filter> filters, long seqBelow, int defaultLimit,
      int maxLimit, long now, MysqlQueryBudget budget) {
    List<Part> parts = new ArrayList<>(filters.size());
    try {
      for (Filter f : filters) {
        int limit = FilterSql.limitOf(f, defaultLimit, maxLimit);
        if (limit <= 0) {
          continue;
        }
        FilterSql.Where w = FilterSql.where(f, seqBelow, now, SqlDialect.MYSQL, tenantId);
        if (w != null) {
          parts.add(new Part(w, limit));
        }
      }
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(e);
    }
    if (parts.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    if (parts.size() == 1) {
      return rows(pool, parts.get(0), budget);
    }
    // Several filters read in one transaction: InnoDB's REPEATABLE READ gives them one snapshot, as
    // SQLite's BEGIN does, so a concurrent write cannot show up in one filter's rows but not another's.
    return PooledConnections.inTransaction(pool, conn -> {
      Map<String, StoredEvent> byId = new LinkedHashMap<>();
      Future<Void> chain = Future.succeededFuture();
      for (Part p : parts) {
        // One statement at a time on the connection; callbacks run in order on its context.
        chain = chain.compose(v -> rows(conn, p, budget).map(list -> {
          for (StoredEvent e : list) {
            byId.putIfAbsent(e.id(), e);
          }
          return null;
        }));
      }
      return chain.map(v -> {
        List<StoredEvent> out = new ArrayList<>(byId.values());
        out.sort(NEWEST_FIRST);
        return out;
      });
    });
  }

  /** NIP-45: how many distinct stored events match any filter (limits ignored). */
  public Future<Long> count(Pool pool, List<Filter> filters, long seqBelow, long now) {
    return count(pool, filters, seqBelow, now, MysqlQueryBudget.NONE);
  }

  /** As {@link #count(Pool, List, long, long)} within {@code budget} (see {@link #query}). */
  Future<Long> count(Pool pool, List<Filter> filters, long seqBelow, long now, MysqlQueryBudget budget) {
    StringBuilder text = new StringBuilder("SELECT COUNT(*) FROM (");
    List<Object> params = new ArrayList<>();
    int n = 0;
    try {
      for (Filter f : filters) {
        FilterSql.Where w = FilterSql.where(f, seqBelow, now, SqlDialect.MYSQL, tenantId);
        if (w == null) {
          continue;
        }
        if (n++ > 0) {
          text.append(" UNION ");
        }
        // UNION (not ALL) deduplicates seqs across filters; all are this tenant's, so seq is unique.
        text.append("SELECT e.seq FROM ").append(w.from()).append(" WHERE ").append(w.sql());
        params.addAll(w.params());
      }
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(e);
    }
    if (n == 0) {
      return Future.succeededFuture(0L);
    }
    text.append(") matched"); // MySQL requires an alias on a derived table
    String bounded;
    try {
      bounded = budget.apply(text.toString());
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return pool.preparedQuery(bounded).execute(tuple(params, null))
        .map(rs -> rs.iterator().next().getLong(0))
        .recover(e -> Future.failedFuture(failure("count", e, budget)));
  }

  /**
   * NIP-77: the (created_at, id) items matching {@code filter} (an explicit limit honoured), at most
   * {@code max}; when more matched, only how many (as the SQLite reader).
   */
  public Future<SyncItems> syncItems(Pool pool, Filter filter, int max, long now) {
    FilterSql.Where w;
    try {
      w = FilterSql.where(filter, Long.MAX_VALUE, now, SqlDialect.MYSQL, tenantId);
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(e);
    }
    int limit = filter.limit() == null ? -1 : filter.limit();
    if (w == null || limit == 0) {
      return Future.succeededFuture(new SyncItems(VectorStorage.builder(1).build(), 0));
    }
    boolean limited = limit >= 0 && limit <= max;
    String text = "SELECT e.created_at, e.id FROM " + w.from() + " WHERE " + w.sql()
        + (limited ? " ORDER BY " + w.orderBy() : "") + " LIMIT ?";
    return pool.preparedQuery(text).execute(tuple(w.params(), limited ? limit : max + 1))
        .compose(rs -> {
          if (rs.size() > max) {
            // More than the cap: only how many would match (an explicit limit caps the answer).
            return count(pool, List.of(filter), Long.MAX_VALUE, now)
                .map(matched -> new SyncItems(null, limit >= 0 ? Math.min(matched, limit) : matched));
          }
          VectorStorage.Builder items = VectorStorage.builder(Math.max(1, rs.size()));
          for (Row r : rs) {
            items.add(r.getLong(0), r.getBuffer(1).getBytes());
          }
          return Future.succeededFuture(new SyncItems(items.build(), rs.size()));
        })
        .recover(e -> Future.failedFuture(failure("negentropy read", e)));
  }

  /** Stored events with {@code from <= seq < to} in seq order, at most {@code max} (a pod's catch-up read). */
  public Future<List<StoredEvent>> range(Pool pool, long from, long to, int max) {
    return pool.preparedQuery("SELECT seq, id, created_at, json FROM events WHERE tenant_id = ? AND seq >= ?"
            + " AND seq < ? ORDER BY seq LIMIT ?")
        .execute(Tuple.of(tenantId, from, to, max))
        .map(rs -> {
          List<StoredEvent> out = new ArrayList<>(rs.size());
          for (Row r : rs) {
            out.add(new StoredEvent(r.getLong(0), Hex.encode(r.getBuffer(1).getBytes()), r.getLong(2),
                r.getBuffer(3).getBytes()));
          }
          return out;
        })
        .recover(e -> Future.failedFuture(failure("catch-up read", e)));
  }

  private Future<List<StoredEvent>> rows(SqlClient client, Part p, MysqlQueryBudget budget) {
    FilterSql.Where w = p.where();
    String text;
    try {
      text = budget.apply("SELECT e.seq, e.id, e.created_at, e.json FROM " + w.from() + " WHERE " + w.sql()
          + " ORDER BY " + w.orderBy() + " LIMIT ?");
    } catch (RuntimeException e) {
      return Future.failedFuture(e); // the budget was used up by the filters before this one
    }
    return client.preparedQuery(text).execute(tuple(w.params(), p.limit()))
        .map(rs -> {
          List<StoredEvent> out = new ArrayList<>(Math.min(rs.size(), p.limit()));
          for (Row r : rs) {
            out.add(new StoredEvent(r.getLong(0), Hex.encode(r.getBuffer(1).getBytes()), r.getLong(2),
                r.getBuffer(3).getBytes()));
          }
          return out;
        })
        .recover(e -> Future.failedFuture(failure("query", e, budget)));
  }

  /** FilterSql's params as a Tuple: the client binds binary columns from a Buffer, not a byte[]. */
  private static Tuple tuple(List<Object> params, Integer limit) {
    Tuple t = Tuple.tuple();
    for (Object p : params) {
      t.addValue(p instanceof byte[] b ? Buffer.buffer(b) : p);
    }
    if (limit != null) {
      t.addInteger(limit);
    }
    return t;
  }

  /** The budget's {@link dev.cairn.store.QueryBudgetExceeded} when it stopped the statement, else a store fault. */
  private RuntimeException failure(String what, Throwable e, MysqlQueryBudget budget) {
    RuntimeException over = budget.exceeded(e);
    return over != null ? over : failure(what, e);
  }

  private IllegalStateException failure(String what, Throwable e) {
    return new IllegalStateException("MySQL " + what + " for tenant " + tenantId + " failed: " + e.getMessage(), e);
  }
}
