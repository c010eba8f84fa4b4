package dev.cairn.store.mysql;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.mysqlclient.MySQLBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The MySQL dialect's entry point for one pod: the meta DB (migrated at start, {@code db/mysql-meta}),
 * the tenant registry in it, and the tenants' databases ({@link MysqlDatabases}). {@link #open} gives a
 * tenant's store wherever the registry places it.
 */
public final class MysqlStore {
  private static final Logger LOG = Logger.getLogger(MysqlStore.class.getName());
  private static final MysqlMigrator META_SCHEMA = new MysqlMigrator("db/mysql-meta");

  private final MysqlUrl url;
  private final Pool meta;
  private final MysqlTenantRegistry registry;
  private final MysqlDatabases databases;
  private final String defaultPlacement;

  private MysqlStore(Vertx vertx, MysqlUrl url, Pool meta, int poolSize, String defaultPlacement) {
    this.url = url;
    this.meta = meta;
    this.registry = new MysqlTenantRegistry(meta, url.database());
    this.databases = new MysqlDatabases(vertx, url, meta, poolSize);
    this.defaultPlacement = defaultPlacement;
  }

  /**
   * Connects to the meta DB of {@code url} and migrates it. {@code defaultPlacement}: where tenants the
   * registry does not know yet go ({@code store.placement}).
   */
  public static Future<MysqlStore> start(Vertx vertx, MysqlUrl url, int poolSize, String defaultPlacement) {
    Pool meta = MySQLBuilder.pool()
        .with(new PoolOptions().setMaxSize(Math.max(2, Math.min(poolSize, 4))).setName("cairn-meta")
            .setIdleTimeout(MysqlDatabases.IDLE_SECONDS).setIdleTimeoutUnit(TimeUnit.SECONDS))
        .connectingTo(url.connectOptions())
        .using(vertx)
        .build();
    return createIfMissing(vertx, url)
        .compose(v -> META_SCHEMA.migrate(meta))
        .map(applied -> {
          LOG.info("store: MySQL meta DB " + url + " ready" + (applied.isEmpty() ? "" : ", migrations " + applied));
          return new MysqlStore(vertx, url, meta, poolSize, defaultPlacement);
        })
        .onFailure(e -> meta.close())
        .recover(e -> Future.failedFuture(new IllegalStateException("store.url " + url + ": cannot open the meta DB: "
            + e.getMessage(), e)));
  }

  /**
   * Creates the meta database when the server does not have it yet (the tenant databases are created the
   * same way, so the account needs CREATE anyway): a first pod needs nothing prepared by hand.
   */
  private static Future<Void> createIfMissing(Vertx vertx, MysqlUrl url) {
    Pool bootstrap = MySQLBuilder.pool().with(new PoolOptions().setMaxSize(1))
        .connectingTo(url.connectOptions("")).using(vertx).build();
    return bootstrap.query("CREATE DATABASE IF NOT EXISTS `" + url.database().replace("`", "``")
            + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin").execute()
        .<Void>mapEmpty()
        .eventually(bootstrap::close);
  }

  /** The meta DB's pool (tenant registry, signal plane). */
  public Pool meta() {
    return meta;
  }

  public MysqlTenantRegistry registry() {
    return registry;
  }

  /** The runtime tenants of the registry (issue 10): read by the poller, written by the admin API. */
  public MysqlRuntimeTenants runtimeTenants() {
    return new MysqlRuntimeTenants(meta, registry, defaultPlacement);
  }

  /** The tenant's store: registered with the default placement if new, its database created and migrated. */
  public Future<MysqlTenant> open(String tenant) {
    return registry.resolve(tenant, defaultPlacement)
        .compose(p -> databases.pool(p.dbName()).compose(db -> MysqlTenant.open(p, db.pool(), db.server())))
        .recover(e -> Future.failedFuture(new IllegalStateException("tenant " + tenant + " on " + url
            + " cannot be opened: " + e.getMessage(), e)));
  }

  public Future<Void> close() {
    return databases.close().eventually(meta::close);
  }
}
