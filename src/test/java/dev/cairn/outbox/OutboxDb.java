package dev.cairn.outbox;

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

/** Reads (and, to simulate crashes, edits) a tenant DB's outbox tables from a test. */
final class OutboxDb {
  private OutboxDb() {}

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

  static List<Row> rows(Path db) throws SQLException {
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
  static boolean searchCaughtUp(Path db) throws SQLException {
    long last = count(db, "SELECT coalesce(max(id), 0) FROM event_queue");
    long cursor = count(searchDb(db), "SELECT coalesce((SELECT v FROM search_state WHERE k = 'queue_cursor'), -1)");
    long build = count(searchDb(db), "SELECT coalesce((SELECT v FROM search_state WHERE k = 'build_seq'), 0)");
    return build == -1 && cursor == last;
  }

  static long count(Path db, String sql, Object... params) throws SQLException {
    try (Connection c = open(db); PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  static int update(Path db, String sql) throws SQLException {
    try (Connection c = open(db); Statement st = c.createStatement()) {
      return st.executeUpdate(sql);
    }
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
