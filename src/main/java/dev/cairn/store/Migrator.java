package dev.cairn.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Applies numbered SQL migrations ({@code NNNN_name.sql}) from a classpath directory, tracked in
 * {@code _migrations(version, name, applied_at)}. The files are listed in {@code <dir>/migrations.txt}
 * (one file name a line, {@code #} comments) because a classpath directory cannot be listed inside a
 * fat jar.
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

  /** One migration file. */
  public record Migration(int version, String name, String sql) {}

  /** A JDBC action that may be retried. */
  @FunctionalInterface
  public interface SqlAction<T> {
    T run() throws SQLException;
  }

  public static final int DEFAULT_TRIES = 5;
  public static final long DEFAULT_INITIAL_BACKOFF_MS = 100;
  public static final long DEFAULT_MAX_BACKOFF_MS = 1000;

  private static final Pattern FILE = Pattern.compile("^(\\d+)_([A-Za-z0-9_\\-]+)\\.sql$");

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
    this.migrations = load(this.resourceDir);
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
            for (String sql : splitStatements(m.sql())) {
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

  private static List<Migration> load(String dir) {
    ClassLoader cl = Migrator.class.getClassLoader();
    String index = read(cl, dir + "/migrations.txt");
    if (index == null) {
      throw new StoreException("missing migration index " + dir + "/migrations.txt");
    }
    List<Migration> out = new ArrayList<>();
    int last = 0;
    for (String raw : index.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = FILE.matcher(line);
      if (!m.matches()) {
        throw new StoreException("bad migration file name in " + dir + "/migrations.txt: " + line);
      }
      int version = Integer.parseInt(m.group(1));
      if (version <= last) {
        throw new StoreException("migrations out of order in " + dir + ": " + line);
      }
      last = version;
      String sql = read(cl, dir + "/" + line);
      if (sql == null) {
        throw new StoreException("missing migration file " + dir + "/" + line);
      }
      out.add(new Migration(version, m.group(2), sql));
    }
    return List.copyOf(out);
  }

  private static String read(ClassLoader cl, String resource) {
    try (InputStream in = cl.getResourceAsStream(resource)) {
      return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new StoreException("cannot read " + resource, e);
    }
  }

  /**
   * Splits a script into statements on {@code ;} outside quotes and comments; a {@code CREATE
   * TRIGGER} body ends only at {@code END;}.
   */
  static List<String> splitStatements(String script) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    int n = script.length();
    for (int i = 0; i < n; i++) {
      char c = script.charAt(i);
      if (c == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
        while (i < n && script.charAt(i) != '\n') {
          i++;
        }
        cur.append('\n');
        continue;
      }
      if (c == '/' && i + 1 < n && script.charAt(i + 1) == '*') {
        int end = script.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 1;
        cur.append(' ');
        continue;
      }
      if (c == '\'' || c == '"' || c == '`') {
        int j = i + 1;
        while (j < n) {
          if (script.charAt(j) == c) {
            if (j + 1 < n && script.charAt(j + 1) == c) {
              j += 2;
              continue;
            }
            break;
          }
          j++;
        }
        cur.append(script, i, Math.min(j + 1, n));
        i = j;
        continue;
      }
      if (c == ';') {
        String stmt = cur.toString().strip();
        String upper = stmt.toUpperCase(Locale.ROOT);
        boolean trigger = upper.matches("(?s)^CREATE\\s+(TEMP\\s+|TEMPORARY\\s+)?TRIGGER\\b.*");
        if (trigger && !upper.matches("(?s).*\\bEND$")) {
          cur.append(c);
          continue;
        }
        if (!stmt.isEmpty()) {
          out.add(stmt);
        }
        cur.setLength(0);
        continue;
      }
      cur.append(c);
    }
    String tail = cur.toString().strip();
    if (!tail.isEmpty()) {
      out.add(tail);
    }
    return out;
  }
}
