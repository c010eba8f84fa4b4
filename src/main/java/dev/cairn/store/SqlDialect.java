package dev.cairn.store;

import dev.cairn.store.mysql.MysqlSearchText;
import dev.cairn.store.outbox.SearchIndex;

/**
 * The few places where {@link FilterSql}'s SQL differs between SQLite and MySQL/MariaDB. Everything
 * else (which conditions, which index drives, the order) is one definition, so both stores answer a
 * REQ with the same events in the same order.
 */
public enum SqlDialect {
  /** One database per tenant: no tenant column. */
  SQLITE,
  /** Tenant tables keyed by tenant_id (db/mysql/0001_tenant.sql): every table is scoped by it. */
  MYSQL;

  /** {@code events e} pinned to {@code index}: the hint syntax differs. */
  String eventsUsing(String index) {
    return this == SQLITE ? "events e INDEXED BY " + index : "events e FORCE INDEX (" + index + ")";
  }

  /**
   * {@code column} in a form the planner will not use an index for. SQLite's unary '+' does that;
   * MySQL needs no such trick (its cost model has statistics, and the conditions it applies it to,
   * seq and expiration, lead no index after tenant_id except the primary key and the purge index).
   */
  String noIndex(String column) {
    return this == SQLITE ? "+" + column : column;
  }

  /** The tag-index-driven FROM clause: events joined to their tag_index entries. */
  String tagDrivenFrom() {
    return this == SQLITE
        ? "tag_index t CROSS JOIN events e ON e.seq = t.seq"
        : "tag_index t JOIN events e ON e.tenant_id = t.tenant_id AND e.seq = t.seq";
  }

  /**
   * The bound search string for a NIP-50 search, or null when it has no word (the filter matches
   * nothing). Both read words the same way; MySQL's form also works around InnoDB's minimum token size
   * and stopwords ({@link MysqlSearchText}).
   */
  String searchQuery(String search) {
    return this == SQLITE ? SearchIndex.matchExpression(search) : MysqlSearchText.against(search);
  }

  /**
   * The NIP-50 condition on {@code e.seq}: one {@code ?} for {@link #searchQuery}, after the tenant's
   * {@code ?} on MySQL. SQLite: the FTS5 index in the attached search DB ({@code s}); MySQL: the
   * FULLTEXT index of search_docs (db/mysql/0002_search.sql), which spans tenants, hence the
   * tenant_id re-check.
   */
  String searchCondition() {
    return this == SQLITE
        ? "e.seq IN (SELECT rowid FROM s.search_fts WHERE search_fts MATCH ?)"
        : "e.seq IN (SELECT sd.seq FROM search_docs sd WHERE sd.tenant_id = ?"
            + " AND MATCH (sd.body) AGAINST (? IN BOOLEAN MODE))";
  }

  boolean scopedByTenant() {
    return this == MYSQL;
  }
}
