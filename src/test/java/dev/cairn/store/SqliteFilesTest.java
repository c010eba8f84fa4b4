package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConnection;

/** Every connection the stores open leaves out the driver's generated-keys query after each INSERT. */
class SqliteFilesTest {
  @TempDir
  Path dir;

  @Test
  void noConnectionQueriesGeneratedKeysAfterItsInserts() throws Exception {
    Path file = dir.resolve("t.db");
    for (SqliteFiles.Role role : new SqliteFiles.Role[] {SqliteFiles.Role.STANDALONE, SqliteFiles.Role.WRITER,
        SqliteFiles.Role.CHECKPOINTER, SqliteFiles.Role.READER}) {
      try (Connection c = SqliteFiles.open(file, role)) {
        assertFalse(c.unwrap(SQLiteConnection.class).getConnectionConfig().isGetGeneratedKeys(), role.name());
      }
    }
    try (Connection c = SqliteFiles.open(file, SqliteFiles.Role.STANDALONE)) {
      try (Statement st = c.createStatement()) {
        st.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)");
      }
      try (PreparedStatement ins = c.prepareStatement("INSERT INTO t(v) VALUES (?)");
          PreparedStatement last = c.prepareStatement("SELECT last_insert_rowid()")) {
        for (int i = 1; i <= 3; i++) {
          ins.setString(1, "v" + i);
          assertEquals(1, ins.executeUpdate());
          try (ResultSet rs = last.executeQuery()) {
            rs.next();
            assertEquals(i, rs.getLong(1), "the store's own last_insert_rowid() still reads the new row");
          }
        }
      }
    }
  }
}
