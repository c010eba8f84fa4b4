package dev.cairn.store.mysql;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.mysqlclient.MySQLBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One connection pool per physical database (a dedicated tenant's, or a shared pool's), created and
 * migrated ({@code db/mysql}) on first use. Idle connections are closed by the pool after
 * {@link #IDLE_SECONDS}, so a cold tenant holds no connection; the next use opens one again.
 * Used on one Vert.x context (the database-engine's).
 */
final class MysqlDatabases {
  static final int IDLE_SECONDS = 60;
  private static final MysqlMigrator TENANT_SCHEMA = new MysqlMigrator("db/mysql");

  private final Vertx vertx;
  private final MysqlUrl url;
  private final Pool meta;
  private final int poolSize;
  /** Ready (created, migrated and its server known) or being made ready. */
  private final Map<String, Future<Database>> pools = new HashMap<>();

  /** A database's pool, and which server it talks to (for the SQL that differs). */
  record Database(Pool pool, MysqlServerKind server) {}

  MysqlDatabases(Vertx vertx, MysqlUrl url, Pool meta, int poolSize) {
    this.vertx = vertx;
    this.url = url;
    this.meta = meta;
    this.poolSize = poolSize;
  }

  /** The pool of database {@code db} and its server kind; created, migrated and asked first if this process has not yet. */
  Future<Database> pool(String db) {
    Future<Database> f = pools.get(db);
    if (f == null || f.failed()) {
      f = open(db);
      pools.put(db, f);
    }
    return f;
  }

  private Future<Database> open(String db) {
    return meta.query("CREATE DATABASE IF NOT EXISTS `" + db.replace("`", "``")
            + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin").execute()
        .compose(v -> {
          Pool p = MySQLBuilder.pool()
              .with(new PoolOptions().setMaxSize(poolSize).setName("cairn-" + db)
                  .setIdleTimeout(IDLE_SECONDS).setIdleTimeoutUnit(TimeUnit.SECONDS).setPoolCleanerPeriod(5_000))
              .connectingTo(url.connectOptions(db))
              .using(vertx)
              .build();
          return TENANT_SCHEMA.migrate(p).compose(applied -> MysqlServerKind.of(p))
              .map(server -> new Database(p, server))
              .onFailure(e -> p.close());
        });
  }

  Future<Void> close() {
    List<Future<Void>> closing = new ArrayList<>();
    pools.values().forEach(f -> {
      if (f.succeeded()) {
        closing.add(f.result().pool().close());
      }
    });
    pools.clear();
    return Future.join(closing).mapEmpty();
  }
}
