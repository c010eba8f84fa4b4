package dev.cairn.store.mysql;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.security.SecureRandom;

/**
 * The tenant registry in the MySQL meta DB ({@code tenants}): where each tenant lives and its feed epoch.
 * With several pods the registry, not a pod's config file, says where a tenant is: the first pod to
 * meet a tenant registers it ({@code INSERT IGNORE}: a racing pod's row wins and both read it back).
 */
public final class MysqlTenantRegistry {
  private static final String SELECT = "SELECT placement, db_name, feed_epoch FROM tenants WHERE id = ?";
  private static final char[] BASE32 = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();

  private final Pool meta;
  private final String metaDb;
  private final SecureRandom random = new SecureRandom();

  public MysqlTenantRegistry(Pool meta, String metaDb) {
    this.meta = meta;
    this.metaDb = metaDb;
  }

  /** The meta database's name (a dedicated tenant's database is named after it). */
  String metaDb() {
    return metaDb;
  }

  /** The tenant's placement; registers it with {@code defaultPlacement} when the registry has no row. */
  public Future<MysqlPlacement> resolve(String tenant, String defaultPlacement) {
    return find(tenant).compose(found -> {
      if (found != null) {
        return Future.succeededFuture(found);
      }
      String db = MysqlPlacement.databaseFor(metaDb, tenant, defaultPlacement);
      return meta.preparedQuery("INSERT IGNORE INTO tenants(id, created_at_s, feed_epoch, placement, db_name)"
              + " VALUES (?, ?, ?, ?, ?)")
          .execute(Tuple.of(tenant, System.currentTimeMillis() / 1000, newEpoch(), defaultPlacement, db))
          .compose(v -> find(tenant))
          .compose(row -> row != null ? Future.succeededFuture(row)
              : Future.failedFuture(new IllegalStateException("tenant " + tenant + " vanished from the registry")));
    });
  }

  /** The registered placement, or null. */
  public Future<MysqlPlacement> find(String tenant) {
    return meta.preparedQuery(SELECT).execute(Tuple.of(tenant)).map(rows -> first(tenant, rows));
  }

  private static MysqlPlacement first(String tenant, RowSet<Row> rows) {
    if (rows.size() == 0) {
      return null;
    }
    Row r = rows.iterator().next();
    return new MysqlPlacement(tenant, r.getString(0), r.getString(1), r.getString(2));
  }

  /** A new feed epoch: 8 random chars of [a-z2-7], as the SQLite registry makes them. */
  String newEpoch() {
    char[] c = new char[8];
    for (int i = 0; i < c.length; i++) {
      c[i] = BASE32[random.nextInt(32)];
    }
    return new String(c);
  }
}
