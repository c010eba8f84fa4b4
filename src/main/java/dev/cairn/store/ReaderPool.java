package dev.cairn.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A tenant store's reader connections (WAL lets them read while the writer writes), each with its kept
 * statements and its query budget ({@link ReadDeadline}); a read takes one for its duration. Thread-safe.
 */
final class ReaderPool {
  /** How long a read waits for a free reader connection. */
  static final int WAIT_SECONDS = 60;

  private final Path file;
  private final List<Connection> connections;
  private final BlockingQueue<Sql> free;
  /** The query budget of each connection (fixed at open; a read uses its connection's). */
  private final Map<Sql, ReadDeadline> deadlines = new IdentityHashMap<>();
  /** The store's own state: a read neither starts nor runs on a closed store. */
  private final BooleanSupplier storeClosed;

  ReaderPool(Path file, List<Connection> connections, BooleanSupplier storeClosed) {
    this.file = file;
    this.connections = connections;
    this.storeClosed = storeClosed;
    this.free = new ArrayBlockingQueue<>(connections.size(), false, connections.stream().map(Sql::new).toList());
    for (Sql r : free) {
      deadlines.put(r, new ReadDeadline(r.connection()));
    }
  }

  /** Work on a free reader connection, within {@code budgetMillis} when positive ({@link ReadDeadline}). */
  <T> T read(long budgetMillis, SqliteTenantStore.SqlWork<T> work) {
    ensureOpen();
    Sql c;
    try {
      c = free.poll(WAIT_SECONDS, TimeUnit.SECONDS);
      if (c == null) {
        throw new StoreException("no reader connection free within " + WAIT_SECONDS
            + " s (closed or overloaded): " + file);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted waiting for a reader connection", e);
    }
    try {
      ensureOpen();
      return deadlines.get(c).within(budgetMillis, c, work);
    } catch (SQLException e) {
      c.forgetFailedWork();
      throw new StoreException("query failed on " + file, e);
    } finally {
      free.add(c);
    }
  }

  /** Waits (up to 10 s each) for the connections reads still hold, then closes them all. */
  void close() {
    for (int i = 0; i < connections.size(); i++) {
      Sql taken = null;
      try {
        taken = free.poll(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (taken == null) {
        break;
      }
    }
    for (Connection r : connections) {
      SqliteFiles.closeQuietly(r);
    }
  }

  private void ensureOpen() {
    if (storeClosed.getAsBoolean()) {
      throw new StoreException("store closed: " + file);
    }
  }
}
