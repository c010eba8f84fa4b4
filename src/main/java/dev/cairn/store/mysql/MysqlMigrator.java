package dev.cairn.store.mysql;

import dev.cairn.store.Migration;
import dev.cairn.store.MigrationFiles;
import dev.cairn.store.StoreException;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Applies the numbered migrations of a classpath directory ({@code db/mysql}, {@code db/mysql-meta}) to
 * the database of a MySQL/MariaDB/TiDB connection, reactively (vertx-mysql-client), tracked in
 * {@code _migrations(version, name, checksum, applied_at)}. Files are listed and read by
 * {@link MigrationFiles}, as for SQLite.
 *
 * <p>Every pod migrates at start, so two may race on one database. MySQL commits DDL implicitly (a
 * migration cannot be one transaction as in SQLite), so instead of retrying a lost race the whole run
 * holds a named server lock ({@code GET_LOCK}) on one connection: the second pod waits, then finds
 * everything applied. The lock is per database and dies with the session, so a crashed pod never
 * leaves it held. TiDB: GET_LOCK is a real lock only in recent releases (older ones accepted it as a
 * no-op), so check the version before running several pods against TiDB.
 *
 * <p>Each applied migration's SHA-256 is recorded; a run that finds a recorded checksum different from
 * the file refuses to go on (the file was edited after it ran somewhere: databases would differ).
 * Versions recorded but unknown to this build are left alone (a newer build migrated first).
 */
public final class MysqlMigrator {

  /** How long a pod waits for another pod's migration run before giving up. */
  public static final int DEFAULT_LOCK_WAIT_SECONDS = 120;

  private final String resourceDir;
  private final List<Migration> migrations;
  private final int lockWaitSeconds;

  public MysqlMigrator(String resourceDir) {
    this(resourceDir, DEFAULT_LOCK_WAIT_SECONDS);
  }

  public MysqlMigrator(String resourceDir, int lockWaitSeconds) {
    if (lockWaitSeconds < 0) {
      throw new IllegalArgumentException("lockWaitSeconds must be >= 0");
    }
    this.resourceDir = resourceDir.endsWith("/")
        ? resourceDir.substring(0, resourceDir.length() - 1) : resourceDir;
    this.migrations = MigrationFiles.load(this.resourceDir);
    this.lockWaitSeconds = lockWaitSeconds;
  }

  /** The migrations found on the classpath, by ascending version. */
  public List<Migration> migrations() {
    return migrations;
  }

  /**
   * Brings the pool's database up to date on one connection of {@code pool}, returned to it after.
   *
   * @return the versions this call applied (empty when another pod or an earlier run did it); fails
   *     with a {@link StoreException} on a changed migration, a lock timeout or a failed statement
   */
  public Future<List<Integer>> migrate(Pool pool) {
    return PooledConnections.take(pool)
        .compose(conn -> migrate(conn).eventually(conn::close));
  }

  /** As {@link #migrate(Pool)} on a connection the caller owns (its current database). */
  public Future<List<Integer>> migrate(SqlConnection conn) {
    return conn.query("SELECT DATABASE()").execute().compose(rows -> {
      String db = rows.iterator().next().getString(0);
      if (db == null) {
        return Future.failedFuture(new StoreException(
            "migrations of " + resourceDir + ": the connection has no database selected"));
      }
      String lock = lockName(db);
      return acquire(conn, db, lock)
          .compose(v -> migrateLocked(conn, db)
              .eventually(() -> conn.preparedQuery("SELECT RELEASE_LOCK(?)").execute(Tuple.of(lock))));
    });
  }

  private Future<Void> acquire(SqlConnection conn, String db, String lock) {
    return conn.preparedQuery("SELECT GET_LOCK(?, ?)").execute(Tuple.of(lock, lockWaitSeconds))
        .compose(rows -> {
          Long got = rows.iterator().next().getLong(0);
          if (got != null && got == 1L) {
            return Future.succeededFuture();
          }
          return Future.failedFuture(new StoreException("migrations of " + resourceDir + " on database "
              + db + ": another process held the migration lock " + lock + " for more than "
              + lockWaitSeconds + " s (a migration still running, or stuck: see SHOW PROCESSLIST)"));
        });
  }

  private Future<List<Integer>> migrateLocked(SqlConnection conn, String db) {
    return conn.query("CREATE TABLE IF NOT EXISTS _migrations ("
            + "version INT NOT NULL PRIMARY KEY, name VARCHAR(255) NOT NULL, "
            + "checksum CHAR(64) CHARACTER SET ascii NOT NULL, applied_at BIGINT NOT NULL"
            + ") ENGINE = InnoDB")
        .execute()
        .compose(v -> conn.query("SELECT version, checksum FROM _migrations").execute())
        .compose(rows -> {
          Map<Integer, String> applied = new HashMap<>();
          for (Row r : rows) {
            applied.put(r.getInteger(0), r.getString(1));
          }
          List<Migration> pending = new ArrayList<>();
          for (Migration m : migrations) {
            String recorded = applied.get(m.version());
            if (recorded == null) {
              pending.add(m);
            } else if (!recorded.equals(m.checksum())) {
              return Future.failedFuture(new StoreException("migration " + m.fileName() + " of "
                  + resourceDir + " was changed after it was applied to database " + db
                  + " (recorded checksum " + recorded + ", file " + m.checksum()
                  + "): restore the file and put the change in a new migration"));
            }
          }
          return applyAll(conn, db, pending);
        });
  }

  private Future<List<Integer>> applyAll(SqlConnection conn, String db, List<Migration> pending) {
    List<Integer> appliedNow = new ArrayList<>();
    Future<Void> chain = Future.succeededFuture();
    for (Migration m : pending) {
      chain = chain.compose(v -> apply(conn, db, m)).map(v -> {
        appliedNow.add(m.version());
        return null;
      });
    }
    return chain.map(v -> List.copyOf(appliedNow));
  }

  private Future<Void> apply(SqlConnection conn, String db, Migration m) {
    List<String> statements = MigrationFiles.statements(m.sql());
    Future<Void> chain = Future.succeededFuture();
    for (int i = 0; i < statements.size(); i++) {
      String sql = statements.get(i);
      int n = i + 1;
      // Text protocol: DDL is not accepted by every server as a prepared statement.
      chain = chain.compose(v -> conn.query(sql).execute().<Void>mapEmpty()
          .recover(e -> Future.failedFuture(new StoreException("migration " + m.fileName() + " of "
              + resourceDir + " failed on database " + db + " at statement " + n + " of "
              + statements.size() + " (" + firstLine(sql) + "): " + e.getMessage()
              + (n > 1 ? "; MySQL committed the statements before it (DDL is not transactional):"
                  + " undo them by hand before the next start" : ""), e))));
    }
    return chain.compose(v -> conn.preparedQuery(
            "INSERT INTO _migrations(version, name, checksum, applied_at) VALUES (?, ?, ?, ?)")
        .execute(Tuple.of(m.version(), m.name(), m.checksum(), System.currentTimeMillis() / 1000))
        .mapEmpty());
  }

  /**
   * The server lock guarding one database's migrations. Hashed because lock names are limited to 64
   * characters and a database name alone may use all of them.
   */
  static String lockName(String database) {
    try {
      byte[] h = MessageDigest.getInstance("SHA-256").digest(database.getBytes(StandardCharsets.UTF_8));
      return "cairn.migrate." + HexFormat.of().formatHex(h, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }

  private static String firstLine(String sql) {
    String line = sql.strip().lines().findFirst().orElse("");
    return line.length() > 80 ? line.substring(0, 80) + "..." : line;
  }
}
