package dev.cairn.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Applies numbered SQL migrations ({@code NNNN_name.sql}) from a classpath directory, tracked in
 * {@code _migrations(version, name, applied_at)}. The files are listed in {@code <dir>/migrations.txt}
 * and read by {@link MigrationFiles} (shared with the MySQL migrator).
 *
 * <p>Every process applies migrations at start, so two of them may race on a fresh database. Each
 * migration runs in its own transaction that re-checks {@code _migrations} after taking the write
 * lock; a lost race (busy/locked database, unique-key conflict on {@code _migrations}) is retried with
 * bounded backoff (default 100 ms doubling to 1 s, 5 tries), re-reading what was applied. Only a
 * persistent error is thrown.
 *
 * <p>Dialect neutral except for the transaction start: SQLite takes the write lock up front with
 * {@code BEGIN IMMEDIATE}; other databases use a plain JDBC transaction.
 */
public final class Migrator {

  /** A JDBC action that may be retried. */
  @FunctionalInterface
  public interface SqlAction<T> {
    T run() throws SQLException;
  }

  public static final int DEFAULT_TRIES = 5;
  public static final long DEFAULT_INITIAL_BACKOFF_MS = 100;
  public static final long DEFAULT_MAX_BACKOFF_MS = 1000;

  private final String resourceDir;
  private final int tries;
  private final long initialBackoffMs;
  private final long maxBackoffMs;
  private final List<Migration> migrations;

  public Migrator(String resourceDir) {
    this(resourceDir, DEFAULT_TRIES, DEFAULT_INITIAL_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS);
  }

  public Migrator(String resourceDir, int tries, long initialBackoffMs, long maxBackoffMs) {
    if (tries < 1) {
      throw new IllegalArgumentException("tries must be >= 1");
    }
    this.resourceDir = resourceDir.endsWith("/")
        ? resourceDir.substring(0, resourceDir.length() - 1) : resourceDir;
    this.tries = tries;
    this.initialBackoffMs = initialBackoffMs;
    this.maxBackoffMs = maxBackoffMs;
    this.migrations = MigrationFiles.load(this.resourceDir);
  }

  /** The migrations found on the classpath, by ascending version. */
  public List<Migration> migrations() {
    return migrations;
  }

  /**
   * Brings the database on {@code conn} (autocommit on) up to date.
   *
   * @return the versions this call applied (empty when another process or an earlier open did it)
   */
  public List<Integer> migrate(Connection conn) {
    try {
      return retry(tries, initialBackoffMs, maxBackoffMs, () -> migrateOnce(conn));
    } catch (SQLException e) {
      throw new StoreException("migrations of " + resourceDir + " failed", e);
    }
  }

  /** Versions recorded in {@code _migrations} (empty when the table does not exist yet). */
  public static Set<Integer> appliedVersions(Connection conn) throws SQLException {
    Set<Integer> out = new HashSet<>();
    try (Statement st = conn.createStatement();
        ResultSet rs = st.executeQuery("SELECT version FROM _migrations")) {
      while (rs.next()) {
        out.add(rs.getInt(1));
      }
    }
    return out;
  }

  private List<Integer> migrateOnce(Connection conn) throws SQLException {
    boolean sqlite = isSqlite(conn);
    try (Statement st = conn.createStatement()) {
      st.executeUpdate("CREATE TABLE IF NOT EXISTS _migrations ("
          + "version INTEGER PRIMARY KEY, name VARCHAR(255) NOT NULL, applied_at BIGINT NOT NULL)");
    }
    List<Integer> appliedNow = new ArrayList<>();
    Set<Integer> applied = appliedVersions(conn);
    for (Migration m : migrations) {
      if (applied.contains(m.version())) {
        continue;
      }
      begin(conn, sqlite);
      boolean done = false;
      try {
        // Re-read under the write lock: another process may have applied it meanwhile.
        if (!appliedVersions(conn).contains(m.version())) {
          try (Statement st = conn.createStatement()) {
            for (String sql : MigrationFiles.statements(m.sql())) {
              st.executeUpdate(sql);
            }
          }
          try (PreparedStatement ps = conn.prepareStatement(
              "INSERT INTO _migrations(version, name, applied_at) VALUES (?, ?, ?)")) {
            ps.setInt(1, m.version());
            ps.setString(2, m.name());
            ps.setLong(3, System.currentTimeMillis() / 1000);
            ps.executeUpdate();
          }
          appliedNow.add(m.version());
        }
        commit(conn, sqlite);
        done = true;
      } finally {
        if (!done) {
          rollbackQuietly(conn, sqlite);
        }
      }
    }
    return appliedNow;
  }

  private static void begin(Connection conn, boolean sqlite) throws SQLException {
    if (sqlite) {
      try (Statement st = conn.createStatement()) {
        st.execute("BEGIN IMMEDIATE");
      }
    } else {
      conn.setAutoCommit(false);
    }
  }

  private static void commit(Connection conn, boolean sqlite) throws SQLException {
    if (sqlite) {
      try (Statement st = conn.createStatement()) {
        st.execute("COMMIT");
      }
    } else {
      conn.commit();
      conn.setAutoCommit(true);
    }
  }

  private static void rollbackQuietly(Connection conn, boolean sqlite) {
    try {
      if (sqlite) {
        try (Statement st = conn.createStatement()) {
          st.execute("ROLLBACK");
        }
      } else {
        conn.rollback();
        conn.setAutoCommit(true);
      }
    } catch (SQLException ignored) {
      // no transaction open, or the connection is gone: nothing to undo
    }
  }

  private static boolean isSqlite(Connection conn) throws SQLException {
    return conn.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains("sqlite");
  }

  /**
   * Runs {@code action}, retrying transient errors ({@link #isTransient}) with backoff
   * {@code initialMs} doubling up to {@code maxMs}, at most {@code tries} attempts in all.
   */
  public static <T> T retry(int tries, long initialMs, long maxMs, SqlAction<T> action)
      throws SQLException {
    long backoff = initialMs;
    for (int attempt = 1; ; attempt++) {
      try {
        return action.run();
      } catch (SQLException e) {
        if (attempt >= tries || !isTransient(e)) {
          throw e;
        }
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          e.addSuppressed(ie);
          throw e;
        }
        backoff = Math.min(backoff * 2, maxMs);
      }
    }
  }

  /** Busy/locked database or a unique-key conflict: the kind of error a lost race produces. */
  public static boolean isTransient(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        int code = s.getErrorCode() & 0xff;
        String state = s.getSQLState();
        String msg = String.valueOf(s.getMessage()).toUpperCase(Locale.ROOT);
        if (msg.contains("SQLITE_BUSY") || msg.contains("SQLITE_LOCKED")) {
          return true;
        }
        if (msg.contains("SQLITE_CONSTRAINT") || msg.contains("UNIQUE CONSTRAINT")) {
          return true;
        }
        if (state != null && (state.equals("23000") || state.equals("23505") || state.equals("40001"))) {
          return true; // duplicate key / serialization failure (MySQL, TiDB, Postgres)
        }
        if (msg.contains("DUPLICATE ENTRY") || msg.contains("DEADLOCK")) {
          return true;
        }
        if (code == 5 || code == 6) { // SQLITE_BUSY, SQLITE_LOCKED
          if (msg.contains("SQLITE") || state == null) {
            return true;
          }
        }
      }
    }
    return false;
  }
}
