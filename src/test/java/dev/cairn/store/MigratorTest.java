package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MigratorTest {
  @TempDir Path dir;

  private static List<Integer> versions(Path file) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT version FROM _migrations ORDER BY version")) {
      List<Integer> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getInt(1));
      }
      return out;
    }
  }

  @Test
  void migrationsListedAndNumbered() {
    List<Migration> ms = new Migrator("db/sqlite").migrations();
    assertTrue(ms.size() >= 1);
    assertEquals(1, ms.get(0).version());
    assertEquals("events", ms.get(0).name());
    assertEquals("tenants", new Migrator("db/sqlite-meta").migrations().get(0).name());
  }

  @Test
  void idempotentOnReopen() throws Exception {
    Path file = dir.resolve("a/b/t.db");
    int n = new Migrator("db/sqlite").migrations().size();
    SqliteTenantStore s = SqliteTenantStore.open(file, 1);
    s.persistBatch(List.of(Ev.ev(1, Ev.ALICE, 1, 1)), 10);
    s.close();
    assertEquals(n, versions(file).size());
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      assertEquals(List.of(), new Migrator("db/sqlite").migrate(c)); // nothing left to apply
      assertEquals(n, Migrator.appliedVersions(c).size());
    }
    SqliteTenantStore again = SqliteTenantStore.open(file, 1);
    assertEquals(1, again.count(List.of(Ev.all()), Long.MAX_VALUE, 10));
    again.close();
    assertEquals(n, versions(file).size());
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("PRAGMA journal_mode")) {
      rs.next();
      assertEquals("wal", rs.getString(1));
    }
  }

  @Test
  void firstMigrateReportsWhatItApplied() throws Exception {
    Path file = dir.resolve("m.db");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      SqliteFiles.registerFunctions(c);
      Migrator m = new Migrator("db/sqlite");
      List<Integer> applied = m.migrate(c);
      assertEquals(m.migrations().stream().map(Migration::version).toList(), applied);
    }
  }

  @Test
  void concurrentOpenOfNewFileBothSucceed() throws Exception {
    for (int round = 0; round < 5; round++) {
      Path file = dir.resolve("race" + round + ".db");
      int threads = 4;
      CyclicBarrier barrier = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<SqliteTenantStore>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          futures.add(pool.submit(() -> {
            barrier.await();
            return SqliteTenantStore.open(file, 1);
          }));
        }
        List<SqliteTenantStore> stores = new ArrayList<>();
        for (Future<SqliteTenantStore> f : futures) {
          stores.add(f.get()); // throws if any open failed
        }
        stores.get(0).persistBatch(List.of(Ev.ev(1, Ev.ALICE, 1, 1)), 10);
        for (SqliteTenantStore s : stores) {
          assertEquals(1, s.count(List.of(Ev.all()), Long.MAX_VALUE, 10));
          s.close();
        }
        assertEquals(new Migrator("db/sqlite").migrations().size(), versions(file).size());
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void concurrentMetaOpenAgreesOnEpoch() throws Exception {
    Path file = dir.resolve("meta.db");
    int threads = 4;
    CyclicBarrier barrier = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<String>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(pool.submit(() -> {
          barrier.await();
          try (MetaStore m = MetaStore.open(file)) {
            return m.ensureTenant("default");
          }
        }));
      }
      Set<String> epochs = new java.util.HashSet<>();
      for (Future<String> f : futures) {
        epochs.add(f.get());
      }
      assertEquals(1, epochs.size());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void retryBacksOffOnTransientErrorsThenSucceeds() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    long t0 = System.nanoTime();
    String r = Migrator.retry(5, 20, 1000, () -> {
      if (calls.incrementAndGet() < 3) {
        throw new SQLException("[SQLITE_BUSY] The database file is locked", null, 5);
      }
      return "ok";
    });
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertEquals("ok", r);
    assertEquals(3, calls.get());
    assertTrue(ms >= 20 + 40, "backoff doubled: " + ms);
  }

  @Test
  void retryGivesUpAfterMaxTriesAndDoesNotRetryPersistentErrors() {
    AtomicInteger calls = new AtomicInteger();
    assertThrows(SQLException.class, () -> Migrator.retry(5, 1, 4, () -> {
      calls.incrementAndGet();
      throw new SQLException("UNIQUE constraint failed: _migrations.version", "23000", 19);
    }));
    assertEquals(5, calls.get());
    calls.set(0);
    assertThrows(SQLException.class, () -> Migrator.retry(5, 1, 4, () -> {
      calls.incrementAndGet();
      throw new SQLException("[SQLITE_ERROR] SQL error or missing database (no such table: x)", null, 1);
    }));
    assertEquals(1, calls.get());
  }

  /** Another connection holds the write lock for {@code holdMs} from the moment this returns. */
  private static Thread holdWriteLock(Path file, long holdMs) throws Exception {
    CyclicBarrier locked = new CyclicBarrier(2);
    Thread t = new Thread(() -> {
      try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + file);
          Statement st = other.createStatement()) {
        st.execute("BEGIN IMMEDIATE");
        locked.await();
        Thread.sleep(holdMs);
        st.execute("COMMIT");
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    t.start();
    locked.await();
    return t;
  }

  @Test
  void busyDatabaseIsRetriedWithBackoff() throws Exception {
    Path file = dir.resolve("busy.db");
    Thread holder = holdWriteLock(file, 250);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      st.execute("PRAGMA busy_timeout = 0"); // surface SQLITE_BUSY immediately
      SqliteFiles.registerFunctions(c);
      long t0 = System.nanoTime();
      List<Integer> applied = new Migrator("db/sqlite").migrate(c);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertEquals(new Migrator("db/sqlite").migrations().size(), applied.size());
      assertTrue(ms >= 200, "waited through backoff: " + ms);
    }
    holder.join();
  }

  @Test
  void persistentBusyIsThrownAfterBoundedTries() throws Exception {
    Path file = dir.resolve("stuck.db");
    Thread holder = holdWriteLock(file, 1500);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement()) {
      st.execute("PRAGMA busy_timeout = 0");
      long t0 = System.nanoTime();
      assertThrows(StoreException.class, () -> new Migrator("db/sqlite", 3, 10, 20).migrate(c));
      assertTrue((System.nanoTime() - t0) / 1_000_000 < 1000);
    }
    holder.join();
  }

  @Test
  void splitStatementsHandlesCommentsQuotesAndTriggers() {
    String sql = "-- header; not a statement\n"
        + "CREATE TABLE a (x TEXT DEFAULT 'a;b'); /* c; */\n"
        + "CREATE TRIGGER trg AFTER INSERT ON a BEGIN\n  INSERT INTO b VALUES (1);\n  INSERT INTO b VALUES (2);\nEND;\n"
        + "INSERT INTO a VALUES ('it''s; fine')";
    List<String> parts = MigrationFiles.statements(sql);
    assertEquals(3, parts.size(), parts.toString());
    assertEquals("CREATE TABLE a (x TEXT DEFAULT 'a;b')", parts.get(0));
    assertTrue(parts.get(1).startsWith("CREATE TRIGGER") && parts.get(1).endsWith("END"));
    assertEquals("INSERT INTO a VALUES ('it''s; fine')", parts.get(2));
  }
}
