package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cairn-wal VFS (decision 0016) under the store's own connection roles: a commit's frames go out in
 * a few write calls, and every other connection (readers with their memory map, the checkpointer, a
 * connection opened after the writer closed) sees exactly the committed rows, never a frame still in
 * the writer's buffer.
 */
class SqliteWalVfsTest {
  private static final int ROW_BYTES = 3000;

  @TempDir
  Path dir;

  @BeforeAll
  static void loadTheVfs() {
    // built by src/main/c/build.sh where the platform has gcc and sqlite3ext.h (this project's CI does)
    assumeTrue(SqliteWalVfsTest.class.getResource(NativeResource.RESOURCE_DIR + NativeResource.platform() + "/"
        + SqliteWalVfs.LIBRARY) != null, "no cairn-wal build for this platform");
    assertTrue(SqliteWalVfs.load(), "the cairn-wal VFS is in the jar but did not load");
  }

  @Test
  void aCommitsFramesGoOutInAFewWriteCalls() throws Exception {
    Path db = dir.resolve("frames.db");
    try (Connection w = SqliteFiles.open(db, SqliteFiles.Role.WRITER)) {
      createTable(w);
      SqliteWalVfs.Stats before = SqliteWalVfs.stats();
      for (int t = 0; t < 20; t++) {
        commitRows(w, t * 50L, 50);
      }
      SqliteWalVfs.Stats after = SqliteWalVfs.stats();
      long buffered = after.walWritesBuffered() - before.walWritesBuffered();
      long calls = after.writeCalls() - before.writeCalls();
      // 20 commits of 50 rows of 3 KB: well over a hundred frames each, two writes per frame in SQLite
      assertTrue(buffered >= 20 * 2 * 40, "WAL writes buffered: " + buffered);
      assertTrue(calls * 10 < buffered, "write calls " + calls + " for " + buffered + " WAL writes");
      assertEquals(1000, count(w));
    }
  }

  @Test
  void readersAndTheCheckpointerSeeEveryCommitAndNothingElse() throws Exception {
    Path db = dir.resolve("shared.db");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong committed = new AtomicLong();
    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    List<Thread> others = new ArrayList<>();
    try (Connection w = SqliteFiles.open(db, SqliteFiles.Role.WRITER)) {
      createTable(w);
      for (int r = 0; r < 2; r++) {
        others.add(thread(() -> {
          try (Connection c = SqliteFiles.open(db, SqliteFiles.Role.READER)) {
            while (!stop.get()) {
              long floor = committed.get(); // committed before this read began: all must be there
              long seen = checkedCount(c);
              if (seen < floor) {
                problems.add("a reader saw " + seen + " rows after " + floor + " were committed");
              }
            }
          }
        }, problems));
      }
      others.add(thread(() -> {
        try (Connection c = SqliteFiles.open(db, SqliteFiles.Role.CHECKPOINTER); Statement st = c.createStatement()) {
          while (!stop.get()) {
            st.execute("PRAGMA wal_checkpoint(PASSIVE)");
            Thread.sleep(5);
          }
        }
      }, problems));
      long rows = 0;
      for (int t = 0; t < 120; t++) {
        int n = 1 + (t * 37) % 90;
        commitRows(w, rows, n);
        rows += n;
        committed.set(rows);
        if (t % 40 == 39) { // the WAL starts over at its beginning after a full checkpoint
          try (Statement st = w.createStatement()) {
            st.execute("PRAGMA wal_checkpoint(RESTART)");
          }
        }
      }
      stop.set(true);
      for (Thread t : others) {
        t.join(30_000);
      }
      assertTrue(problems.isEmpty(), String.join("; ", problems));
      assertEquals(rows, checkedCount(w));
      try (Statement st = w.createStatement(); ResultSet rs = st.executeQuery("PRAGMA integrity_check")) {
        assertTrue(rs.next());
        assertEquals("ok", rs.getString(1));
      }
    }
    // after the writer closed (its WAL checkpointed and removed by SQLite): a new connection reads it all
    try (Connection c = SqliteFiles.open(db, SqliteFiles.Role.READER)) {
      assertEquals(committed.get(), checkedCount(c));
    }
  }

  private interface Body {
    void run() throws Exception;
  }

  private static Thread thread(Body body, ConcurrentLinkedQueue<String> problems) {
    Thread t = new Thread(() -> {
      try {
        body.run();
      } catch (Exception e) {
        problems.add(e.toString());
      }
    });
    t.start();
    return t;
  }

  private static void createTable(Connection w) throws SQLException {
    try (Statement st = w.createStatement()) {
      st.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, body BLOB NOT NULL)");
      st.execute("CREATE INDEX rows_k ON rows(k)");
    }
  }

  /** Rows {@code first..first+n-1} in one transaction; each body is a function of its id. */
  private static void commitRows(Connection w, long first, int n) throws SQLException {
    try (Statement st = w.createStatement()) {
      st.execute("BEGIN");
    }
    try (PreparedStatement ps = w.prepareStatement("INSERT INTO rows(id, k, body) VALUES (?, ?, ?)")) {
      for (long id = first; id < first + n; id++) {
        ps.setLong(1, id);
        ps.setLong(2, (id * 7919) % 1000); // a second, random-order index: pages all over the file
        ps.setBytes(3, body(id));
        ps.executeUpdate();
      }
    }
    try (Statement st = w.createStatement()) {
      st.execute("COMMIT");
    }
  }

  private static byte[] body(long id) {
    byte[] b = new byte[ROW_BYTES];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (id * 31 + i);
    }
    return b;
  }

  private static long count(Connection c) throws SQLException {
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM rows")) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }

  /** The rows in one read transaction, each body checked against its id; the count. */
  private static long checkedCount(Connection c) throws SQLException {
    long n = 0;
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT id, k, body FROM rows ORDER BY id")) {
      while (rs.next()) {
        long id = rs.getLong(1);
        if (id != n || rs.getLong(2) != (id * 7919) % 1000 || !java.util.Arrays.equals(rs.getBytes(3), body(id))) {
          throw new SQLException("row " + n + " reads as id " + id + " with a body or key that is not its own");
        }
        n++;
      }
    }
    return n;
  }
}
