package dev.cairn.store.mysql;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;

/**
 * How the outbox claim locks the rows it picks. MySQL 8 and MariaDB 10.6+ have {@code SKIP LOCKED}:
 * pods claiming at once each take rows the others have not locked, without waiting. TiDB parses
 * {@code SKIP LOCKED} but does not implement it: the read silently takes no lock at all
 * (pingcap/tidb#69720), so two pods could claim one row. There the claim uses a plain
 * {@code FOR UPDATE} (TiDB pessimistic transactions, the default: a claimer waits for the other's
 * commit, then re-reads the rows as committed), correct but serialized per tenant.
 */
public enum MysqlClaimLock {
  SKIP_LOCKED(" FOR UPDATE SKIP LOCKED"),
  WAIT(" FOR UPDATE");

  /** Appended to the claim's SELECT. */
  final String clause;

  MysqlClaimLock(String clause) {
    this.clause = clause;
  }

  /** The lock the server behind {@code pool} supports: {@link #WAIT} on TiDB, {@link #SKIP_LOCKED} otherwise. */
  public static Future<MysqlClaimLock> detect(Pool pool) {
    return pool.query("SELECT VERSION()").execute()
        .map(rows -> forVersion(rows.iterator().next().getString(0)));
  }

  /** From a {@code VERSION()} string ({@code 8.0.11-TiDB-v8.5.6}, {@code 10.11.19-MariaDB...}). */
  public static MysqlClaimLock forVersion(String version) {
    return version != null && version.contains("TiDB") ? WAIT : SKIP_LOCKED;
  }
}
