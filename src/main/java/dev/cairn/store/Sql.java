package dev.cairn.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A store connection with its prepared statements kept: the SQLite driver compiles the SQL on every
 * {@code prepareStatement}, which costs more than running a simple statement, so each distinct SQL text
 * is compiled once per connection (at most {@link #MAX} kept, least recently used closed first).
 * Statements from {@link #prepare} belong to the cache: use them, close their ResultSets, never close
 * them. One thread at a time, like the connection.
 */
public final class Sql {
  static final int MAX = 128;

  private final Connection connection;
  private final Map<String, PreparedStatement> cache = new LinkedHashMap<>(32, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, PreparedStatement> eldest) {
      if (size() <= MAX) {
        return false;
      }
      try {
        eldest.getValue().close();
      } catch (SQLException ignored) {
        // evicted anyway
      }
      return true;
    }
  };

  public Sql(Connection connection) {
    this.connection = connection;
  }

  public Connection connection() {
    return connection;
  }

  /** The prepared statement for {@code sql}, compiled on first use. */
  public PreparedStatement prepare(String sql) throws SQLException {
    PreparedStatement ps = cache.get(sql);
    if (ps == null) {
      ps = connection.prepareStatement(sql);
      cache.put(sql, ps);
    }
    return ps;
  }

  /** Runs a statement without parameters or results (BEGIN, SAVEPOINT, ...), prepared once. */
  public void execute(String sql) throws SQLException {
    prepare(sql).execute();
  }

  /** Runs an update with parameters; returns the rows changed. */
  public int update(String sql, Object... params) throws SQLException {
    PreparedStatement ps = prepare(sql);
    bind(ps, params);
    return ps.executeUpdate();
  }

  static void bind(PreparedStatement ps, Object... params) throws SQLException {
    for (int i = 0; i < params.length; i++) {
      Object p = params[i];
      if (p == null) {
        ps.setNull(i + 1, java.sql.Types.NULL);
      } else if (p instanceof String s) {
        ps.setString(i + 1, s);
      } else if (p instanceof Integer n) {
        ps.setInt(i + 1, n);
      } else if (p instanceof Long n) {
        ps.setLong(i + 1, n);
      } else if (p instanceof byte[] b) {
        ps.setBytes(i + 1, b);
      } else {
        throw new IllegalArgumentException("unsupported parameter " + p);
      }
    }
  }

  /**
   * After failed work on this connection (a read, a write, the search indexer's step): a kept statement
   * whose step failed for any reason but a constraint, busy or misuse (a full disk, an I/O error, an
   * interrupt) is finalized by the driver, and every later use of it fails with "statement is not
   * executing". So the statements are compiled afresh, and a transaction the work left open is ended:
   * without this, one full disk left the writer refusing every event until a restart, space or no space.
   */
  public void forgetFailedWork() {
    clear();
    try (java.sql.Statement st = connection.createStatement()) {
      st.execute("ROLLBACK");
    } catch (SQLException ignored) {
      // no transaction open
    }
  }

  /** Closes the kept statements (the connection stays open). */
  public void clear() {
    for (PreparedStatement ps : cache.values()) {
      try {
        ps.close();
      } catch (SQLException ignored) {
        // closing anyway
      }
    }
    cache.clear();
  }
}
