package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.Filter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * FilterSql's two dialects without a server: one placeholder per parameter, values never in the SQL
 * text, every table tenant-scoped on MySQL, SQLite's SQL unchanged by the dialect parameter.
 */
class FilterSqlDialectTest {
  private static final String TENANT = "tenant-x";
  private static final List<Filter> FILTERS = List.of(
      new Filter(null, null, null, null, null, null, null, null),
      new Filter(Set.of(Ev.id(1), Ev.id(2)), null, null, null, 5L, 9L, null, null),
      new Filter(null, Set.of(Ev.ALICE), Set.of(1), null, null, null, null, null),
      new Filter(null, Set.of(Ev.ALICE), Set.of(0, 30023), null, null, null, null, null),
      new Filter(null, null, Set.of(1), Map.of('t', Set.of("nostr"), 'p', Set.of(Ev.BOB, Ev.ALICE)), null, null,
          null, null),
      new Filter(null, null, null, Map.of('e', Set.of(Ev.id(3), Ev.id(4))), null, null, null, null));

  @Test
  void placeholdersOnlyAndTenantScopedOnMysql() {
    for (Filter f : FILTERS) {
      FilterSql.Where w = FilterSql.where(f, 100, 200, SqlDialect.MYSQL, TENANT);
      String all = w.from() + " " + w.sql();
      assertEquals(w.params().size(), all.chars().filter(c -> c == '?').count(), all);
      assertFalse(all.contains(TENANT) || all.contains("nostr") || all.contains("INDEXED BY") || all.contains("+"),
          all);
      long tables = (all + " ").split("tag_index|events e").length - 1;
      long scoped = w.params().stream().filter(TENANT::equals).count();
      assertEquals(tables, scoped, "one tenant_id condition per table: " + all);
    }
  }

  @Test
  void sqliteUnchangedByTheDialectParameter() {
    for (Filter f : FILTERS) {
      FilterSql.Where a = FilterSql.where(f, 100, 200);
      FilterSql.Where b = FilterSql.where(f, 100, 200, SqlDialect.SQLITE, TENANT);
      assertEquals(a.from() + a.sql() + a.orderBy(), b.from() + b.sql() + b.orderBy());
      assertEquals(a.params().size(), b.params().size());
      assertFalse(b.params().contains(TENANT));
    }
    assertTrue(FilterSql.where(FILTERS.get(2), 1, 1).from().contains("INDEXED BY events_pubkey"));
    assertTrue(FilterSql.where(FILTERS.get(2), 1, 1, SqlDialect.MYSQL, TENANT).from()
        .contains("FORCE INDEX (events_pubkey)"));
  }

  @Test
  void mysqlNeedsATenant() {
    assertThrows(IllegalArgumentException.class, () -> FilterSql.where(FILTERS.get(0), 1, 1, SqlDialect.MYSQL, null));
  }

  @Test
  void searchIsAFulltextMatchScopedByTenantOnMysql() {
    Filter search = new Filter(null, Set.of(Ev.ALICE), null, null, null, null, null, "The  a+b -x* \"q\" k:v");
    FilterSql.Where w = FilterSql.where(search, 1, 1, SqlDialect.MYSQL, TENANT);
    String all = w.from() + " " + w.sql();
    assertEquals(w.params().size(), all.chars().filter(c -> c == '?').count(), all);
    assertTrue(all.contains("MATCH (sd.body) AGAINST (? IN BOOLEAN MODE)"), all);
    assertTrue(all.contains("sd.tenant_id = ?"), all);
    // Words only (cut at operators and quotes, key:value ignored), each required, under the prefix.
    assertEquals("+zzthe +zza +zzb +zzx +zzq", w.params().get(w.params().size() - 1));
    assertEquals(TENANT, w.params().get(w.params().size() - 2));
    // No word: matches nothing, as on SQLite.
    Filter none = new Filter(null, null, null, null, null, null, null, "-- k:v !");
    assertEquals(null, FilterSql.where(none, 1, 1, SqlDialect.MYSQL, TENANT));
    assertEquals(null, FilterSql.where(none, 1, 1));
    // SQLite keeps its FTS5 expression (the tokenizer folds case).
    assertEquals("\"The\" \"a\" \"b\" \"x\" \"q\"", FilterSql.where(search, 1, 1).params().get(
        FilterSql.where(search, 1, 1).params().size() - 1));
  }
}
