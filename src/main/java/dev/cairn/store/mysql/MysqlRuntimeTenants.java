package dev.cairn.store.mysql;

import dev.cairn.config.RuntimeTenantRegistry;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * Runtime tenants in the meta DB's {@code tenants} table (migration 0002): a row with a {@code config} is
 * a runtime tenant, {@code removed = 1} a deleted one. Every change raises {@code updated_at} (the DB's
 * clock, at least +1), which is what each pod's poller reads above its high water ({@link #changedSince}).
 */
public final class MysqlRuntimeTenants implements RuntimeTenantRegistry {
  /** Epoch ms on the DB's clock: one clock for every pod, so pod clock skew cannot hide a change. */
  static final String NOW_MS = "CAST(UNIX_TIMESTAMP(CURRENT_TIMESTAMP(3)) * 1000 AS SIGNED)";
  private static final String LIVE = " config IS NOT NULL AND removed = 0";

  /** A registry row as the poller sees it (removed ones included). */
  public record Change(String id, String placement, String config, long updatedAt, boolean removed) {}

  private final Pool meta;
  private final MysqlTenantRegistry registry;
  private final String defaultPlacement;

  public MysqlRuntimeTenants(Pool meta, MysqlTenantRegistry registry, String defaultPlacement) {
    this.meta = meta;
    this.registry = registry;
    this.defaultPlacement = defaultPlacement;
  }

  /** Runtime-tenant rows changed after {@code afterMs} (removed ones too): the poller's one query. */
  public Future<List<Change>> changedSince(long afterMs) {
    return meta.preparedQuery("SELECT id, placement, config, updated_at, removed FROM tenants"
            + " WHERE updated_at > ? AND config IS NOT NULL")
        .execute(Tuple.of(afterMs))
        .map(rows -> {
          List<Change> out = new ArrayList<>();
          for (io.vertx.sqlclient.Row r : rows) {
            out.add(new Change(r.getString(0), r.getString(1), r.getString(2), r.getLong(3), r.getInteger(4) != 0));
          }
          return out;
        });
  }

  @Override
  public Future<List<Entry>> list() {
    return meta.query("SELECT id, placement, config, updated_at FROM tenants WHERE" + LIVE + " ORDER BY id")
        .execute()
        .map(rows -> {
          List<Entry> out = new ArrayList<>();
          rows.forEach(r -> out.add(entry(r)));
          return out;
        });
  }

  @Override
  public Future<Entry> get(String id) {
    return meta.preparedQuery("SELECT id, placement, config, updated_at FROM tenants WHERE id = ? AND" + LIVE)
        .execute(Tuple.of(id))
        .map(rows -> rows.size() == 0 ? null : entry(rows.iterator().next()));
  }

  @Override
  public Future<Put> put(String id, JsonObject config, String placement) {
    return meta.preparedQuery("SELECT placement, config IS NULL OR removed = 1 FROM tenants WHERE id = ?")
        .execute(Tuple.of(id))
        .compose(rows -> {
          boolean known = rows.size() > 0;
          String existing = known ? rows.iterator().next().getString(0) : null;
          if (known && placement != null && !placement.equals(existing)) {
            return Future.failedFuture(new IllegalArgumentException("tenant " + id + " is " + existing
                + " already; changing its placement (moving its data) is not supported"));
          }
          boolean created = !known || rows.iterator().next().getInteger(1) != 0;
          String p = placement != null ? placement : defaultPlacement;
          // A racing PUT of a new id: the first INSERT wins the placement, the other becomes its update.
          return meta.preparedQuery("INSERT INTO tenants(id, created_at_s, feed_epoch, placement, db_name, config,"
                  + " updated_at, removed) VALUES (?, ?, ?, ?, ?, ?, " + NOW_MS + ", 0)"
                  + " ON DUPLICATE KEY UPDATE config = VALUES(config), removed = 0,"
                  + " updated_at = GREATEST(updated_at + 1, " + NOW_MS + ")")
              .execute(Tuple.of(id, System.currentTimeMillis() / 1000, registry.newEpoch(), p,
                  MysqlPlacement.databaseFor(registry.metaDb(), id, p), config.encode()))
              .compose(x -> get(id))
              .map(e -> new Put(created, e));
        });
  }

  @Override
  public Future<Boolean> remove(String id) {
    return meta.preparedQuery("UPDATE tenants SET removed = 1, updated_at = GREATEST(updated_at + 1, " + NOW_MS
            + ") WHERE id = ? AND" + LIVE)
        .execute(Tuple.of(id))
        .map(r -> r.rowCount() > 0);
  }

  private static Entry entry(io.vertx.sqlclient.Row r) {
    return new Entry(r.getString(0), new JsonObject(r.getString(2)), r.getString(1), r.getLong(3));
  }
}
