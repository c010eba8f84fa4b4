package dev.cairn.store.mysql;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;

/**
 * Which server a pool talks to, as far as the SQL differs: MariaDB, or MySQL 8 and what speaks its
 * dialect (TiDB). Asked once per pool ({@code SELECT VERSION()}) when {@link MysqlDatabases} opens it, and
 * kept with the pool, since every tenant of a shared pool opens on the same pool.
 */
enum MysqlServerKind {
  MARIADB,
  MYSQL;

  /**
   * Asks the server behind {@code pool} ({@code SELECT VERSION()}). {@link MysqlDatabases} asks once per
   * pool it opens and keeps the answer with the pool.
   */
  static Future<MysqlServerKind> of(Pool pool) {
    return pool.query("SELECT VERSION()").execute().map(rows -> fromVersion(rows.iterator().next().getString(0)));
  }

  /** MariaDB says so in VERSION() ("10.11.6-MariaDB-..."); MySQL ("8.0.36") and TiDB ("8.0.11-TiDB-v7.5") do not. */
  static MysqlServerKind fromVersion(String version) {
    return version != null && version.contains("MariaDB") ? MARIADB : MYSQL;
  }
}
