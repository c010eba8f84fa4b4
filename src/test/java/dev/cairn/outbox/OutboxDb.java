package dev.cairn.outbox;

import dev.cairn.relay.TestDialect;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Reads (and, to simulate crashes, edits) a tenant DB's outbox tables from a test. On the MySQL test
 * dialect ({@link TestDialect#mysql()}) the same questions go to the tenant's MariaDB database: the
 * {@link #tenantDb} path then only names the relay's data directory and the tenant (the database is
 * found from them), and the SQL runs unchanged there (a dedicated tenant database holds one tenant_id,
 * so no tenant filter is needed). The NIP-50 index and {@link #open} are SQLite files, SQLite only.
 */
final class OutboxDb {
  private OutboxDb() {}

  /**
   * Why the search questions have no MySQL answer (the tests skip them there): they read SQLite's FTS index
   * and the search handler's cursor; MySQL indexes in the write transaction (search_docs), covered by
   * SearchRelayTest and MysqlSearchTest.
   */
  static final String NO_MYSQL_SEARCH = "these checks read SQLite's search index; MySQL's: SearchRelayTest";

  record Row(long id, String eventId, String type, String body, String status, int attempts, Long claimedAt) {}

  static Path tenantDb(Path dataDir, String tenant) {
    return dataDir.resolve("tenants").resolve(tenant + ".db");
  }

  static Connection open(Path db) throws SQLException {
    Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
    try (Statement st = c.createStatement()) {
      st.execute("PRAGMA busy_timeout = 5000");
    }
    return c;
  }

  static List<Row> rows(Path db) throws Exception {
    if (TestDialect.mysql()) {
      List<Row> out = new ArrayList<>();
      for (List<Object> r : TestDialect.rows(dataDirOf(db), tenantOf(db), "SELECT id, event_id, type, body, status,"
          + " attempts, claimed_at FROM event_queue ORDER BY id")) {
        // body is a MEDIUMBLOB (a Buffer here), the numbers come back as Long/Integer
        out.add(new Row(((Number) r.get(0)).longValue(), (String) r.get(1), (String) r.get(2),
            String.valueOf(r.get(3)), (String) r.get(4), ((Number) r.get(5)).intValue(),
            r.get(6) == null ? null : ((Number) r.get(6)).longValue()));
      }
      return out;
    }
    try (Connection c = open(db); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id, event_id, type, body, status, attempts, claimed_at"
            + " FROM event_queue ORDER BY id")) {
      List<Row> out = new ArrayList<>();
      while (rs.next()) {
        long claimed = rs.getLong(7);
        out.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
            rs.getInt(6), rs.wasNull() ? null : claimed));
      }
      return out;
    }
  }

  /** The tenant's NIP-50 index file (the search handler's). */
  static Path searchDb(Path db) {
    return dev.cairn.store.SqliteTenantStore.searchFileOf(db);
  }

  /** True once the search handler applied every outbox row of the tenant (its cursor is at the last one). */
  static boolean searchCaughtUp(Path db) throws Exception {
    if (TestDialect.mysql()) {
      throw new UnsupportedOperationException(NO_MYSQL_SEARCH);
    }
    long last = count(db, "SELECT coalesce(max(id), 0) FROM event_queue");
    long cursor = count(searchDb(db), "SELECT coalesce((SELECT v FROM search_state WHERE k = 'queue_cursor'), -1)");
    long build = count(searchDb(db), "SELECT coalesce((SELECT v FROM search_state WHERE k = 'build_seq'), 0)");
    return build == -1 && cursor == last;
  }

  static long count(Path db, String sql, Object... params) throws Exception {
    if (TestDialect.mysql()) {
      return TestDialect.count(dataDirOf(db), tenantOf(db), sql, params);
    }
    try (Connection c = open(db); PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  /** The first column of {@code sql}'s rows, as strings. */
  static List<String> strings(Path db, String sql) throws Exception {
    if (TestDialect.mysql()) {
      return TestDialect.strings(dataDirOf(db), tenantOf(db), sql);
    }
    try (Connection c = open(db); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    }
  }

  static int update(Path db, String sql) throws Exception {
    if (TestDialect.mysql()) {
      return TestDialect.update(dataDirOf(db), tenantOf(db), sql);
    }
    try (Connection c = open(db); Statement st = c.createStatement()) {
      return st.executeUpdate(sql);
    }
  }

  /** The relay data directory of a {@link #tenantDb} path ({@code <dataDir>/tenants/<tenant>.db}). */
  private static Path dataDirOf(Path db) {
    return db.getParent().getParent();
  }

  /** The tenant of a {@link #tenantDb} path. */
  private static String tenantOf(Path db) {
    String name = db.getFileName().toString();
    if (!name.endsWith(".db") || name.endsWith(".search.db")) {
      throw new IllegalArgumentException("not a tenantDb path: " + db);
    }
    return name.substring(0, name.length() - ".db".length());
  }

  /** Polls {@code condition} until true or {@code seconds} pass; fails with {@code what}. */
  static void await(String what, int seconds, CheckedCondition condition) throws Exception {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (condition.test()) {
          return;
        }
      } catch (Exception e) {
        last = e;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("timed out after " + seconds + " s waiting for: " + what, last);
  }

  @FunctionalInterface
  interface CheckedCondition {
    boolean test() throws Exception;
  }

  static BooleanSupplier unchecked(CheckedCondition c) {
    return () -> {
      try {
        return c.test();
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    };
  }
}
