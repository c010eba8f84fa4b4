package dev.cairn.config;

import io.vertx.core.json.JsonObject;

/**
 * Which store the tenants live in: {@code store.dialect} {@code sqlite} (embedded, files under
 * {@code store.dir}) or {@code mysql} ({@code store.url}: the meta DB; tenants placed per
 * {@code store.placement} when new; {@code store.pool_size} connections per database).
 */
public record StoreTarget(String dialect, String url, String placement, int poolSize) {
  public static final String SQLITE = "sqlite";
  public static final String MYSQL = "mysql";

  public boolean mysql() {
    return MYSQL.equals(dialect);
  }

  static StoreTarget from(JsonObject store) {
    String dialect = store.getString("dialect", SQLITE);
    if (!SQLITE.equals(dialect) && !MYSQL.equals(dialect)) {
      throw new ConfigException("store.dialect: \"" + dialect + "\" must be sqlite or mysql");
    }
    String url = store.getString("url", "");
    if (MYSQL.equals(dialect) && !url.startsWith("mysql://")) {
      throw new ConfigException("store.url: store.dialect is mysql, so set store.url to"
          + " mysql://USER[:PASS]@HOST:PORT/DB (env CAIRN_STORE_URL); got \"" + url + "\"");
    }
    String placement = store.getString("placement", "dedicated");
    if (!"dedicated".equals(placement) && !"shared".equals(placement)) {
      throw new ConfigException("store.placement: \"" + placement + "\" must be dedicated or shared");
    }
    int poolSize = store.getInteger("pool_size", 8);
    if (poolSize < 1 || poolSize > 256) {
      throw new ConfigException("store.pool_size: " + poolSize + " must be 1..256");
    }
    return new StoreTarget(dialect, url, placement, poolSize);
  }
}
