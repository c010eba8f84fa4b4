package dev.cairn.crash;

import dev.cairn.store.SqliteTenantStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;

/**
 * Reads a tenant's SQLite file (read-only, beside the running relay: WAL lets it) for what no
 * protocol shows: the outbox rows, the handler ledger and the search index.
 */
final class StoreProbe {
  private final Path db;

  StoreProbe(Path dataDir, String tenant) {
    this.db = dataDir.resolve("tenants").resolve(tenant + ".db");
  }

  /**
   * A probe on a copy of the tenant's files (the DB and its WAL) as a killed relay left them. Reading
   * the originals could checkpoint the WAL when the connection closes and spare the restarted relay
   * the recovery this harness is there to test.
   */
  StoreProbe copyTo(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path copy = dir.resolve(db.getFileName());
    for (String suffix : new String[] {"", "-wal"}) {
      Path from = Path.of(db + suffix);
      if (Files.exists(from)) {
        Files.copy(from, Path.of(copy + suffix), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    return new StoreProbe(copy);
  }

  private StoreProbe(Path db) {
    this.db = db;
  }

  /** The outbox's state, read in one snapshot per file. */
  record Outbox(long events, long removed, long storedRows, long deletedRows, long notDone, long deadLettered,
      long withoutOneStoredRow, long orphanStoredRows, long forwardDone, long forwardInProgress) {}

  Outbox outbox() throws SQLException {
    try (Connection c = open(db)) {
      c.setAutoCommit(false); // one read transaction: the counts agree with each other
      Outbox o = new Outbox(
          count(c, "SELECT COUNT(*) FROM events"),
          count(c, "SELECT COUNT(*) FROM removed_events"),
          count(c, "SELECT COUNT(*) FROM event_queue WHERE type = 'EventStored'"),
          count(c, "SELECT COUNT(*) FROM event_queue WHERE type = 'EventDeleted'"),
          count(c, "SELECT COUNT(*) FROM event_queue WHERE status <> 'done'"),
          count(c, "SELECT COUNT(*) FROM event_queue WHERE status = 'dead_lettered'"),
          // every event that was ever stored (still there, or replaced) has exactly one EventStored row
          count(c, "SELECT COUNT(*) FROM (SELECT seq FROM events UNION ALL SELECT seq FROM removed_events) e"
              + " WHERE (SELECT COUNT(*) FROM event_queue q WHERE q.type = 'EventStored' AND q.stored_seq = e.seq) <> 1"),
          count(c, "SELECT COUNT(*) FROM event_queue q WHERE q.type = 'EventStored'"
              + " AND NOT EXISTS (SELECT 1 FROM events e WHERE e.seq = q.stored_seq)"
              + " AND NOT EXISTS (SELECT 1 FROM removed_events r WHERE r.seq = q.stored_seq)"),
          count(c, "SELECT COUNT(*) FROM processed_events WHERE handler = 'forward' AND status = 'done'"),
          count(c, "SELECT COUNT(*) FROM processed_events WHERE handler = 'forward' AND status <> 'done'"));
      c.rollback();
      return o;
    }
  }

  /**
   * Nostr ids of the stored events whose {@code forward} ledger claim is open (in progress, not done):
   * read right after the kill, the only events the restarted relay may forward a second time.
   */
  Set<String> openForwardClaims() throws SQLException {
    try (Connection c = open(db); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT CASE WHEN e.id IS NOT NULL THEN lower(hex(e.id)) ELSE json_extract(CAST(r.json AS TEXT), '$.id') END"
            // (hex(NULL) is '', not NULL: a replaced event's id comes from removed_events)
            + " FROM processed_events p JOIN event_queue q ON q.event_id = p.event_id AND q.type = 'EventStored'"
            + " LEFT JOIN events e ON e.seq = q.stored_seq LEFT JOIN removed_events r ON r.seq = q.stored_seq"
            + " WHERE p.handler = 'forward' AND p.status <> 'done'")) {
      Set<String> ids = new HashSet<>();
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
      return ids;
    }
  }

  /** Rows of the NIP-50 index (one per stored event once the search handler caught up). */
  long searchDocs() throws SQLException {
    try (Connection c = open(SqliteTenantStore.searchFileOf(db))) {
      return count(c, "SELECT COUNT(*) FROM search_fts_docsize");
    }
  }

  /** True once the search handler's cursor is at the last outbox row and its initial build is over. */
  boolean searchCaughtUp() throws SQLException {
    long last;
    try (Connection c = open(db)) {
      last = count(c, "SELECT coalesce(max(id), 0) FROM event_queue");
    }
    try (Connection c = open(SqliteTenantStore.searchFileOf(db))) {
      long cursor = count(c, "SELECT coalesce((SELECT v FROM search_state WHERE k = 'queue_cursor'), -1)");
      long build = count(c, "SELECT coalesce((SELECT v FROM search_state WHERE k = 'build_seq'), 0)");
      return build == -1 && cursor == last;
    }
  }

  private static Connection open(Path file) throws SQLException {
    Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
    try (Statement st = c.createStatement()) {
      st.execute("PRAGMA busy_timeout = 5000");
      st.execute("PRAGMA query_only = true");
    }
    return c;
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }
}
