package dev.cairn.store.signal;

import dev.cairn.store.mysql.MysqlMigrator;
import dev.cairn.store.mysql.MysqlUrl;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.mysqlclient.MySQLBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The signal-plane tests' MariaDB/MySQL: 127.0.0.1:3306 as root (CI starts it) or
 * {@code CAIRN_TEST_MYSQL_URL}, as dev.cairn.store.mysql.TestMysqlServer (package-private there). Each
 * test gets a fresh meta database migrated with {@code db/mysql-meta}, dropped after; pools made with
 * {@link #pod()} stand for separate pods (their own connections).
 */
abstract class SignalTestBase {
  static final long TIMEOUT_S = 30;
  static Vertx vertx;
  static MysqlUrl server;
  static Pool admin;

  String db;
  Pool meta;
  final List<Pool> pools = new ArrayList<>();
  /** Stops of the components a test started, run before the pools close (also when the test failed). */
  final List<Supplier<Future<?>>> stops = new ArrayList<>();

  @BeforeAll
  static void reach() throws Exception {
    String env = System.getenv("CAIRN_TEST_MYSQL_URL");
    server = MysqlUrl.parse(env == null || env.isBlank() ? "mysql://root@127.0.0.1:3306/mysql" : env);
    vertx = Vertx.vertx();
    admin = MySQLBuilder.pool().with(new PoolOptions().setMaxSize(2)).connectingTo(server.connectOptions())
        .using(vertx).build();
    try {
      admin.query("SELECT 1").execute().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      String why = "MySQL/MariaDB not reachable at " + server + " (" + e + "); skipping the signal plane tests";
      System.err.println(why);
      Assumptions.assumeTrue(false, why);
    }
  }

  @AfterAll
  static void close() throws Exception {
    await(admin.close());
    await(vertx.close());
  }

  @BeforeEach
  void createMeta() throws Exception {
    db = "cairn_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12) + "_sig";
    await(admin.query("CREATE DATABASE " + db + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin").execute());
    meta = pod();
    await(new MysqlMigrator("db/mysql-meta").migrate(meta));
  }

  @AfterEach
  void dropMeta() throws Exception {
    for (Supplier<Future<?>> stop : stops) {
      await(stop.get());
    }
    for (Pool p : pools) {
      await(p.close());
    }
    await(admin.query("DROP DATABASE IF EXISTS " + db).execute());
  }

  /** A pool of the meta DB of its own, as one pod has. */
  Pool pod() {
    Pool p = MySQLBuilder.pool().with(new PoolOptions().setMaxSize(4)).connectingTo(server.connectOptions(db))
        .using(vertx).build();
    pools.add(p);
    return p;
  }

  /** {@code poller}, stopped after the test. */
  NotifyPoller started(NotifyPoller poller) throws Exception {
    stops.add(poller::stop);
    await(poller.start());
    return poller;
  }

  long count(String sql, Object... args) throws Exception {
    return await(meta.preparedQuery(sql).execute(Tuple.from(args))).iterator().next().getLong(0);
  }

  static SimpleMeterRegistry registry() {
    return new SimpleMeterRegistry();
  }

  /** Short timings for tests: poll 50 ms, settle 300 ms, cursor written every 100 ms. */
  static SignalSettings fast(String podId, Duration stallBound, Duration retention) {
    return new SignalSettings(podId, Duration.ofMillis(200), Duration.ofMillis(50), 500, 20, Duration.ofMillis(300),
        Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(30), stallBound, retention,
        Duration.ofHours(1), 5_000, 20, Duration.ZERO);
  }

  static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(TIMEOUT_S, TimeUnit.SECONDS);
  }

  /** Polls {@code check} every 20 ms until it is true; false when {@code deadline} passed first. */
  static boolean eventually(Duration deadline, Callable<Boolean> check) throws Exception {
    long end = System.nanoTime() + deadline.toNanos();
    while (System.nanoTime() < end) {
      if (check.call()) {
        return true;
      }
      Thread.sleep(20);
    }
    return check.call();
  }
}
