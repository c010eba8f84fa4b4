package dev.cairn.store;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.logging.Logger;
import org.sqlite.SQLiteConfig;

/**
 * The cairn-wal SQLite VFS (src/main/c/cairn_wal_vfs.c, docs/decisions/0016-wal-writes-coalesced.md): a
 * shim over SQLite's unix VFS that writes a commit's WAL frames with one write call instead of two per
 * frame. The build puts the library for its platform on the class path ({@link NativeResource}); loaded
 * once, it is the default VFS of every SQLite connection the process opens afterwards.
 *
 * <p>Its state is process-wide because what it mirrors is: SQLite's VFS registry lives in the native
 * library, once per process, whatever opened it.
 */
public final class SqliteWalVfs {
  private static final Logger LOG = Logger.getLogger(SqliteWalVfs.class.getName());
  static final String LIBRARY = "libcairnwal.so";
  private static final String ENTRY_POINT = "sqlite3_cairnwal_init";

  /**
   * The in-memory connection that loaded the library, kept open for its statistics function (null: not
   * loaded), and why it is not, once tried. The library's copy is deleted once loaded, so no other
   * connection could load the function again.
   */
  private static Connection loaded;
  private static String unavailable;

  private SqliteWalVfs() {}

  /** What one connection's statistics function reports: buffered WAL writes and the write calls made for them. */
  public record Stats(long walWritesBuffered, long writeCalls) {}

  /**
   * Loads the VFS unless it is loaded already; true when it is in use. When this platform has no build
   * of it, or loading fails, the reason is logged once and SQLite's own VFS stays: nothing else changes.
   */
  public static synchronized boolean load() {
    if (loaded != null) {
      return true;
    }
    if (unavailable != null) {
      return false;
    }
    try {
      loaded = NativeResource.load(LIBRARY, SqliteWalVfs::withExtension);
      if (loaded == null) {
        unavailable = NativeResource.missing();
      } else {
        LOG.info("SQLite WAL writes: the cairn-wal VFS (one write call per commit's frames)");
        return true;
      }
    } catch (IOException | SQLException e) {
      unavailable = "loading it failed: " + e.getMessage();
    }
    LOG.info("SQLite WAL writes: SQLite's own VFS (the cairn-wal VFS is not used: " + unavailable + ")");
    return false;
  }

  /** What the VFS did since it was loaded; null when it is not loaded. */
  public static synchronized Stats stats() throws SQLException {
    if (loaded == null) {
      return null;
    }
    try (Statement st = loaded.createStatement(); ResultSet rs = st.executeQuery("SELECT cairn_wal_vfs_stats()")) {
      String[] parts = rs.next() ? rs.getString(1).split(" ") : new String[] {"0", "0"};
      return new Stats(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
    }
  }

  /** Loading registers the VFS (once per process) and the statistics function on that connection. */
  private static Connection withExtension(Path file) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.enableLoadExtension(true);
    Connection c = DriverManager.getConnection("jdbc:sqlite::memory:", config.toProperties());
    try (PreparedStatement ps = c.prepareStatement("SELECT load_extension(?, ?)")) {
      ps.setString(1, file.toString());
      ps.setString(2, ENTRY_POINT);
      ps.execute();
      return c;
    } catch (SQLException e) {
      c.close();
      throw e;
    }
  }
}
