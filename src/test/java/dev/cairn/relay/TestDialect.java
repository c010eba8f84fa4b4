package dev.cairn.relay;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import dev.cairn.store.mysql.MysqlUrl;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.mysqlclient.MySQLBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Which store dialect the relay tests run on: SQLite unless the system property {@code cairn.test.dialect}
 * is {@code mysql} (the {@code mysql-dialect} surefire execution runs the same test classes that way,
 * against the MariaDB of CI at 127.0.0.1:3306, or {@code CAIRN_TEST_MYSQL_URL}'s server). On MySQL each
 * data directory gets its own meta database (named from the directory, so a restart over the same
 * directory finds its data again) and the tenant databases beside it, dropped when the test ends.
 */
public final class TestDialect {
  public static final String PROPERTY = "cairn.test.dialect";

  private TestDialect() {}

  public static boolean mysql() {
    return "mysql".equals(System.getProperty(PROPERTY, "sqlite"));
  }

  /** Adds the dialect's {@code CAIRN_STORE_*} overrides for a relay on {@code dataDir}. */
  public static void apply(Path dataDir, Map<String, String> env) {
    if (!mysql() || env.containsKey("CAIRN_STORE_DIALECT")) {
      return;
    }
    env.put("CAIRN_STORE_DIALECT", "mysql");
    // A test relay is one pod; with live fan-out on (the mysql default) it would share the CI NATS subjects
    // with the relays of concurrent runs over other databases. Tests of fan-out turn it on themselves.
    env.putIfAbsent("CAIRN_LIVE_ENABLED", "false");
    env.put("CAIRN_STORE_URL", server() + "/" + metaDb(dataDir));
  }

  /** Drops the databases of {@code dataDir}'s relay (the meta DB and every tenant database named after it). */
  public static void drop(Path dataDir) {
    if (mysql()) {
      dropDatabases(dataDir);
    }
  }

  /**
   * {@link #drop} whatever the test dialect: for tests that run their own MySQL pods (named after
   * {@code dataDir}) in the SQLite execution too.
   */
  public static void dropDatabases(Path dataDir) {
    try {
      for (String db : databases(dataDir)) {
        onServer(admin -> admin.query("DROP DATABASE IF EXISTS `" + db + "`").execute());
      }
    } catch (Exception e) {
      System.err.println("could not drop the test databases of " + dataDir + ": " + e);
    }
  }

  /** The MySQL databases of {@code dataDir}'s relay: its meta DB and the tenant databases named after it. */
  public static List<String> databases(Path dataDir) throws Exception {
    return onServer(admin -> admin.query("SHOW DATABASES LIKE '" + metaDb(dataDir) + "%'").execute()
        .map(rows -> {
          List<String> out = new ArrayList<>();
          for (Row r : rows) {
            out.add(r.getString(0));
          }
          return out;
        }));
  }

  /** Runs {@code sql} in the database of {@code tenant} of the relay on {@code dataDir} (MySQL dialect). */
  public static void execute(Path dataDir, String tenant, String sql) throws Exception {
    onServer(admin -> Future.<Void>succeededFuture().compose(v -> admin.withConnection(c -> c.query("USE `" + metaDb(dataDir) + "_t_" + tenant + "`").execute()
            .compose(x -> c.query(sql).execute()))));
  }

  /** The first column of {@code sql}'s rows, as strings, in the database of {@code tenant} (MySQL dialect). */
  public static List<String> strings(Path dataDir, String tenant, String sql) throws Exception {
    return onServer(admin -> admin.withConnection(c -> c.query("USE `" + metaDb(dataDir) + "_t_" + tenant + "`")
        .execute().compose(x -> c.query(sql).execute()).map(rows -> {
          List<String> out = new ArrayList<>();
          for (Row r : rows) {
            out.add(String.valueOf(r.getValue(0)));
          }
          return out;
        })));
  }

  /**
   * Writes {@code events} straight into {@code tenant}'s database of the relay on {@code dataDir} (MySQL
   * dialect; the relay has created and migrated it, and is stopped), in batches, through the store's
   * writer: the MySQL counterpart of filling a SQLite tenant file directly.
   */
  public static void persist(Path dataDir, String tenant, List<dev.cairn.nostr.NostrEvent> events, long now)
      throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      Pool pool = MySQLBuilder.pool().connectingTo(MysqlUrl.parse(server() + "/" + metaDb(dataDir) + "_t_" + tenant)
          .connectOptions()).using(vertx).build();
      dev.cairn.store.mysql.MysqlEventWriter writer = new dev.cairn.store.mysql.MysqlEventWriter(tenant);
      Future<Void> chain = Future.succeededFuture();
      for (int i = 0; i < events.size(); i += 1000) {
        List<dev.cairn.nostr.NostrEvent> batch = events.subList(i, Math.min(events.size(), i + 1000));
        chain = chain.compose(v -> writer.persist(pool, batch, now).mapEmpty());
      }
      chain.eventually(pool::close).toCompletionStage().toCompletableFuture().get(300, TimeUnit.SECONDS);
    } finally {
      vertx.close();
    }
  }

  /**
   * The first column of {@code sql}'s first row as a long (0 when there is no row), in the database of
   * {@code tenant} (MySQL dialect); {@code params} bind its {@code ?} (a prepared statement then).
   */
  public static long count(Path dataDir, String tenant, String sql, Object... params) throws Exception {
    return inTenant(dataDir, tenant, c -> (params.length == 0 ? c.query(sql).execute()
        : c.preparedQuery(sql).execute(Tuple.from(params))).map(rows -> {
          var it = rows.iterator();
          if (!it.hasNext()) {
            return 0L;
          }
          Object v = it.next().getValue(0);
          return v == null ? 0L : ((Number) v).longValue();
        }));
  }

  /** Runs the DML {@code sql} in the database of {@code tenant}; the rows it changed (MySQL dialect). */
  public static int update(Path dataDir, String tenant, String sql) throws Exception {
    return inTenant(dataDir, tenant, c -> c.query(sql).execute().map(rows -> rows.rowCount()));
  }

  /** {@code sql}'s rows in the database of {@code tenant} (MySQL dialect), each as its column values. */
  public static List<List<Object>> rows(Path dataDir, String tenant, String sql) throws Exception {
    return inTenant(dataDir, tenant, c -> c.query(sql).execute().map(rows -> {
      List<List<Object>> out = new ArrayList<>();
      for (Row r : rows) {
        List<Object> values = new ArrayList<>(r.size());
        for (int i = 0; i < r.size(); i++) {
          values.add(r.getValue(i));
        }
        out.add(values);
      }
      return out;
    }));
  }

  /** {@code work} on one connection that has {@code USE}d the database of {@code tenant}. */
  private static <T> T inTenant(Path dataDir, String tenant, Function<SqlConnection, Future<T>> work) throws Exception {
    return onServer(admin -> admin.withConnection(c -> c.query("USE `" + metaDb(dataDir) + "_t_" + tenant + "`")
        .execute().compose(x -> work.apply(c))));
  }

  private static <T> T onServer(Function<Pool, Future<T>> work) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      Pool admin = MySQLBuilder.pool().connectingTo(MysqlUrl.parse(server() + "/mysql").connectOptions())
          .using(vertx).build();
      return work.apply(admin).eventually(admin::close)
          .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } finally {
      vertx.close();
    }
  }

  /** The meta database of the relay on {@code dataDir}. */
  public static String metaDb(Path dataDir) {
    try {
      byte[] h = MessageDigest.getInstance("SHA-256")
          .digest(dataDir.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8));
      return "cairn_rt_" + HexFormat.of().formatHex(h, 0, 6);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** mysql://USER@HOST:PORT of the test server. */
  static String server() {
    String env = System.getenv("CAIRN_TEST_MYSQL_URL");
    String url = env == null || env.isBlank() ? "mysql://root@127.0.0.1:3306/mysql" : env;
    return url.substring(0, url.lastIndexOf('/'));
  }

}
