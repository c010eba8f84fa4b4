package dev.cairn.store.mysql;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Which server a pool talks to, as far as the SQL differs: MariaDB, or MySQL 8 and what speaks its
 * dialect (TiDB). Asked once per pool ({@code SELECT VERSION()}) and remembered while the pool lives,
 * since every tenant of a shared pool opens on the same pool.
 */
enum MysqlServerKind {
  MARIADB,
  MYSQL;

  /** Weak keys: a closed pool (a test's, a dropped database's) takes its entry with it. */
  private static final Map<Pool, Future<MysqlServerKind>> KNOWN = Collections.synchronizedMap(new WeakHashMap<>());

  static Future<MysqlServerKind> of(Pool pool) {
    Future<MysqlServerKind> known = KNOWN.computeIfAbsent(pool, p -> p.query("SELECT VERSION()").execute()
        .map(rows -> fromVersion(rows.iterator().next().getString(0))));
    // A failed look-up (the server not reachable yet) is not remembered: the next open asks again.
    return known.onFailure(e -> KNOWN.remove(pool, known));
  }

  /** MariaDB says so in VERSION() ("10.11.6-MariaDB-..."); MySQL ("8.0.36") and TiDB ("8.0.11-TiDB-v7.5") do not. */
  static MysqlServerKind fromVersion(String version) {
    return version != null && version.contains("MariaDB") ? MARIADB : MYSQL;
  }
}
