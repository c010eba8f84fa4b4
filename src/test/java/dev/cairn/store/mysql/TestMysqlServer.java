package dev.cairn.store.mysql;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.mysqlclient.MySQLBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The MySQL/MariaDB server the dialect tests run against: 127.0.0.1:3306 as root (CI starts it), or
 * {@code CAIRN_TEST_MYSQL_URL}. Each test makes its own databases ({@link #createDatabase}) and drops
 * them after; a class whose server is unreachable is skipped with the reason on stderr too (surefire
 * drops a class-level assumption's message from its summary).
 */
final class TestMysqlServer implements AutoCloseable {
  static final String URL_ENV = "CAIRN_TEST_MYSQL_URL";
  static final long TIMEOUT_S = 60;

  final Vertx vertx;
  final MysqlUrl server;
  final Pool admin;

  private TestMysqlServer(Vertx vertx, MysqlUrl server, Pool admin) {
    this.vertx = vertx;
    this.server = server;
    this.admin = admin;
  }

  /** Connects, or skips the calling test class (naming {@code what} it would have tested). */
  static TestMysqlServer reach(String what) {
    String env = System.getenv(URL_ENV);
    MysqlUrl server = MysqlUrl.parse(env == null || env.isBlank() ? "mysql://root@127.0.0.1:3306/mysql" : env);
    Vertx vertx = Vertx.vertx();
    Pool admin = MySQLBuilder.pool().with(new PoolOptions().setMaxSize(2))
        .connectingTo(server.connectOptions()).using(vertx).build();
    TestMysqlServer s = new TestMysqlServer(vertx, server, admin);
    try {
      admin.query("SELECT 1").execute().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      String why = "MySQL/MariaDB not reachable at " + server + " (" + e + "): start it or set " + URL_ENV
          + "; skipping " + what;
      System.err.println(why);
      s.close();
      Assumptions.assumeTrue(false, why);
    }
    return s;
  }

  /** A new, empty database {@code cairn_test_<random><suffix>} (utf8mb4, binary collation). */
  String createDatabase(String suffix) throws Exception {
    String db = "cairn_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12) + suffix;
    await(admin.query("CREATE DATABASE " + db + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin").execute());
    return db;
  }

  void dropDatabase(String db) throws Exception {
    if (db != null) {
      await(admin.query("DROP DATABASE IF EXISTS " + db).execute());
    }
  }

  /** A pool of {@code size} connections to {@code db}; the caller closes it. */
  Pool pool(String db, int size) {
    return MySQLBuilder.pool().with(new PoolOptions().setMaxSize(size))
        .connectingTo(server.connectOptions(db)).using(vertx).build();
  }

  static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(TIMEOUT_S, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    try {
      await(admin.close());
      await(vertx.close());
    } catch (Exception e) {
      throw new IllegalStateException("closing the MySQL test client failed", e);
    }
  }
}
