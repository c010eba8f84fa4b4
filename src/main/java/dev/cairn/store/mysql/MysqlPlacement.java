package dev.cairn.store.mysql;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where a tenant's data lives on MySQL (the meta DB's {@code tenants} row): its own database
 * ({@code dedicated}) or a pool database shared by many tenants ({@code shared}), and its feed epoch.
 */
public record MysqlPlacement(String tenant, String placement, String dbName, String feedEpoch) {
  public static final String DEDICATED = "dedicated";
  public static final String SHARED = "shared";
  /** MySQL's limit on a database name. */
  static final int MAX_DB_NAME = 64;

  public boolean shared() {
    return SHARED.equals(placement);
  }

  /**
   * The database of a new tenant: {@code <meta>_t_<tenant>} (CONTRACT section 7) when dedicated,
   * {@code <meta>_shared} when shared. A dedicated name longer than MySQL allows keeps its start and
   * ends in a hash of the whole tenant id, so two long ids never share a database.
   */
  static String databaseFor(String metaDb, String tenant, String placement) {
    if (SHARED.equals(placement)) {
      return clip(metaDb + "_shared", metaDb + "_shared");
    }
    return clip(metaDb + "_t_" + tenant, tenant);
  }

  private static String clip(String name, String key) {
    if (name.length() <= MAX_DB_NAME) {
      return name;
    }
    try {
      byte[] h = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      String suffix = "_" + HexFormat.of().formatHex(h, 0, 6);
      return name.substring(0, MAX_DB_NAME - suffix.length()) + suffix;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
