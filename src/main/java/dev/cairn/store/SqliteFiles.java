package dev.cairn.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/** Opening SQLite files the way every store of Cairn wants them: directory, PRAGMAs, WAL. */
public final class SqliteFiles {
  /** Busy timeout of every connection, ms. */
  static final int BUSY_TIMEOUT_MS = 5000;
  /**
   * Page size of new databases. Group commits write every page they dirtied to the WAL, and the
   * random-key indexes (ids, pubkeys, tags) dirty about one page per entry, so the bytes a commit writes
   * grow with the page size. Measured on the benchmark's events (docs/benchmarks.md): at the batch sizes
   * of one busy connection (20-50 events) 4 KB pages cost 120 us of writer CPU per event against 175-200
   * for 8 KB (57 KB of WAL per event against 37 KB); from 200 events per batch up they are equal. Existing
   * files keep theirs.
   */
  static final int PAGE_SIZE = 4096;
  /**
   * Bytes of each file a reader connection reads through a memory map instead of a read() per page:
   * 16 GB, so in practice the whole file (SQLite maps no more than the file holds; sqlite-jdbc's build
   * accepts this size). The newest events, which most queries read, sit at the end of the file: the
   * 256 MB map of before sent exactly those through syscalls once a store passed 256 MB. Connections
   * that write or checkpoint map nothing: with the map on them, a writer committing without pause while
   * another connection checkpointed left b-tree pages unreadable in about one run in ten of
   * {@code WalBoundTest} (decision 0010).
   */
  static final long MMAP_SIZE = 1L << 34;
  /**
   * Bytes a WAL file is cut back to when SQLite starts it over, if it grew past them: 512 MiB. Under
   * sustained writes a busy tenant's WAL reaches 64-280 MB between two restarts (docs/benchmarks.md); cut
   * back to 64 MiB at each restart, it was grown again every time, and the kernel's work for the new
   * blocks was a fifth of the writer's system time (ingest +4-11% accepted events/s without the cut, four
   * alternating pairs). The bound still reclaims the space after a WAL held back for long (a reader on
   * an old snapshot); the file goes when the store closes.
   */
  static final long WAL_SIZE_LIMIT = 512L << 20;
  /**
   * Page cache of every connection, KiB: 16 MB. A writer's commit walks its whole page cache on stores
   * under 1 GiB (a b-tree balance leaves page 262,145 as the cache's largest key: docs/benchmarks.md),
   * so a 64-MB cache cost ~0.2 ms more per commit: a third of the writer's CPU when events arrive one
   * per commit. A tenant writer whose group commits are large gets 64 MB ({@link WriterCache}).
   */
  static final int CACHE_KIB = 16_000;

  /**
   * The driver's own connection settings. sqlite-jdbc by default follows every {@code execute} and
   * {@code executeUpdate} with a regex over the statement's SQL and, for an INSERT, a new statement
   * running {@code SELECT last_insert_rowid()} (prepared, stepped and finalized each time) for
   * {@code getGeneratedKeys}, which nothing here calls (the outbox reads {@code last_insert_rowid()}
   * through a statement of its own): 2.6 against 0.7 us per single-row INSERT, and per stored event ~9 us
   * of the writer's CPU and ~5 of the search indexer's (docs/benchmarks.md).
   */
  private static Properties driverSettings() {
    Properties p = new Properties();
    p.setProperty("jdbc.get_generated_keys", "false");
    return p;
  }

  private SqliteFiles() {}

  /** The absolute path of a DB file whose directory now exists. */
  public static Path withDirectory(Path dbFile) throws StoreException {
    Path abs = dbFile.toAbsolutePath();
    try {
      if (abs.getParent() != null) {
        Files.createDirectories(abs.getParent());
      }
    } catch (IOException e) {
      throw new StoreException("cannot create directory for " + abs, e);
    }
    return abs;
  }

  /** The kinds of connection a store opens. */
  public enum Role {
    /** The one writer: WAL switch (retried like a migration race), checkpoints left to {@link #CHECKPOINTER}. */
    WRITER,
    /** A query connection: read-only. */
    READER,
    /** Runs the WAL checkpoints, off the writer's thread. */
    CHECKPOINTER,
    /** A connection that writes and checkpoints itself (the meta DB, tools). */
    STANDALONE
  }

  /** Opens a connection with the store PRAGMAs. */
  public static Connection open(Path file, Role role) throws SQLException {
    boolean fresh = !Files.exists(file);
    Connection c = DriverManager.getConnection("jdbc:sqlite:" + file, driverSettings());
    try {
      try (Statement st = c.createStatement()) {
        st.execute("PRAGMA busy_timeout = " + BUSY_TIMEOUT_MS);
        st.execute("PRAGMA foreign_keys = ON");
        if (fresh && role != Role.READER) {
          st.execute("PRAGMA page_size = " + PAGE_SIZE);
        }
      }
      if (role == Role.WRITER) {
        registerFunctions(c);
      }
      if (role == Role.WRITER || role == Role.STANDALONE) {
        Migrator.retry(Migrator.DEFAULT_TRIES, Migrator.DEFAULT_INITIAL_BACKOFF_MS,
            Migrator.DEFAULT_MAX_BACKOFF_MS, () -> {
              try (Statement st = c.createStatement();
                  ResultSet rs = st.executeQuery("PRAGMA journal_mode = WAL")) {
                String mode = rs.next() ? rs.getString(1) : "";
                if (!"wal".equalsIgnoreCase(mode)) {
                  throw new SQLException("could not switch to WAL (journal_mode=" + mode + ")");
                }
              }
              return null;
            });
      }
      try (Statement st = c.createStatement()) {
        st.execute("PRAGMA synchronous = NORMAL");
        // The writer never checkpoints inside a commit: the CHECKPOINTER connection does it on
        // another thread (SqliteTenantStore.checkpoint). A standalone connection keeps SQLite's default.
        st.execute("PRAGMA wal_autocheckpoint = " + (role == Role.STANDALONE ? 1000 : 0));
        st.execute("PRAGMA journal_size_limit = " + WAL_SIZE_LIMIT);
        st.execute("PRAGMA mmap_size = " + (role == Role.READER ? MMAP_SIZE : 0));
        st.execute("PRAGMA temp_store = MEMORY");
        st.execute("PRAGMA cache_size = -" + CACHE_KIB);
        if (role == Role.READER) {
          st.execute("PRAGMA query_only = ON");
        }
      }
      return c;
    } catch (SQLException | RuntimeException e) {
      closeQuietly(c);
      throw e;
    }
  }

  /** The SQL functions tenant migrations use: {@code tag_key(name, value)}, the tag index key ({@link TagKey}). */
  public static void registerFunctions(Connection c) throws SQLException {
    org.sqlite.Function.create(c, "tag_key", new org.sqlite.Function() {
      @Override
      protected void xFunc() throws SQLException {
        result(TagKey.of(value_text(0), value_text(1)));
      }
    });
  }

  static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException ignored) {
      // closing anyway
    }
  }
}
