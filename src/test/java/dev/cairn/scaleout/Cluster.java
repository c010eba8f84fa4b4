package dev.cairn.scaleout;

import dev.cairn.store.mysql.MysqlUrl;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.mysqlclient.MySQLBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A cluster for one test: a fresh meta database name on the CI MariaDB (127.0.0.1:3306, or
 * {@code CAIRN_TEST_MYSQL_URL}'s server), a NATS subject prefix of its own on the local NATS, and the pods
 * started on them. Closing stops the pods, drops every database the pods made and deletes their directory.
 */
final class Cluster implements AutoCloseable {
  final Vertx vertx = Vertx.vertx();
  final String metaDb = "cairn_so_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  final String prefix = "cso" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
  final Path dir;
  /** mysql://USER@HOST:PORT of the test server. */
  final String server;
  private final Pool admin;
  private final List<Pod> pods = new ArrayList<>();

  Cluster() throws Exception {
    String env = System.getenv("CAIRN_TEST_MYSQL_URL");
    String url = env == null || env.isBlank() ? "mysql://root@127.0.0.1:3306/mysql" : env;
    server = url.substring(0, url.lastIndexOf('/'));
    admin = MySQLBuilder.pool().connectingTo(MysqlUrl.parse(server + "/mysql").connectOptions()).using(vertx).build();
    dir = Files.createTempDirectory("cairn-scaleout");
  }

  /** The env every pod of the cluster shares (plus {@code extra}). */
  Map<String, String> env(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>();
    env.put("CAIRN_STORE_DIALECT", "mysql");
    env.put("CAIRN_STORE_URL", server + "/" + metaDb);
    env.put("CAIRN_NATS_SUBJECT_PREFIX", prefix);
    env.put("CAIRN_NATS_STREAM", prefix.toUpperCase());
    env.putAll(extra);
    return env;
  }

  Pod start(String id, Map<String, String> extra) throws Exception {
    return start(id, extra, null);
  }

  Pod start(String id, Map<String, String> extra, Path config) throws Exception {
    Pod p = Pod.start(id, dir, env(extra), config);
    pods.add(p);
    return p;
  }

  /** The first column of {@code sql}'s first row as a long, in the meta DB. */
  long metaLong(String sql) throws Exception {
    return await(admin.withConnection(c -> c.query("USE `" + metaDb + "`").execute()
            .compose(x -> c.query("SELECT (" + sql + ") FROM DUAL").execute()))
        .map(rows -> {
          Object v = rows.iterator().next().getValue(0);
          return v == null ? 0L : ((Number) v).longValue();
        }));
  }

  /** id (hex) -> seq of the tenant's stored events. */
  Map<String, Long> seqs(String tenant) throws Exception {
    return await(admin.query("SELECT LOWER(HEX(id)), seq FROM `" + metaDb + "_t_" + tenant + "`.events"
        + " WHERE tenant_id = '" + tenant + "'").execute().map(rows -> {
          Map<String, Long> out = new HashMap<>();
          for (Row r : rows) {
            out.put(r.getString(0), r.getLong(1));
          }
          return out;
        }));
  }

  static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    for (Pod p : pods) {
      p.close();
    }
    List<String> dbs = await(admin.query("SHOW DATABASES LIKE '" + metaDb + "%'").execute().map(rows -> {
      List<String> out = new ArrayList<>();
      for (Row r : rows) {
        out.add(r.getString(0));
      }
      return out;
    }));
    for (String db : dbs) {
      await(admin.query("DROP DATABASE IF EXISTS `" + db + "`").execute());
    }
    await(admin.close());
    vertx.fileSystem().deleteRecursiveBlocking(dir.toString()); // the pods' stores and logs
    await(vertx.close());
  }
}
