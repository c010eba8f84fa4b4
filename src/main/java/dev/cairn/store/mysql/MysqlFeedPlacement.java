package dev.cairn.store.mysql;

import java.util.Objects;

/**
 * Where a tenant's feed rows live on MySQL, which decides its retention sweep (seed 003, "Shared-table
 * storage policy"): a {@code dedicated} database holds one tenant, swept per tenant on its write path;
 * a {@code shared} pool database holds many, swept pool-wide at most once per interval across the
 * cluster ({@code claims}, keyed {@code feed_sweep:<dbName>}), so idle tenants' rows do not grow forever.
 */
public record MysqlFeedPlacement(boolean shared, String dbName, SharedSweepClaims claims) {
  public MysqlFeedPlacement {
    Objects.requireNonNull(dbName, "dbName");
    if (shared) {
      Objects.requireNonNull(claims, "a shared pool needs the meta DB's claims");
    }
  }

  public static MysqlFeedPlacement dedicated(String dbName) {
    return new MysqlFeedPlacement(false, dbName, null);
  }

  public static MysqlFeedPlacement shared(String dbName, SharedSweepClaims claims) {
    return new MysqlFeedPlacement(true, dbName, claims);
  }

  /** The claim's name in {@code shared_maintenance_state}. */
  public String sweepJob() {
    return "feed_sweep:" + dbName;
  }

  /** The label a pool-wide sweep's rows are counted under. */
  public String sweepScope() {
    return "shared_pool:" + dbName;
  }
}
