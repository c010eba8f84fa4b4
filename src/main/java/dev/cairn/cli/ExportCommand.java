package dev.cairn.cli;

import dev.cairn.config.CairnConfig;
import dev.cairn.store.SqliteFiles;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code cairn export}: the tenant's stored events on stdout, one event JSON per line, exactly the
 * stored bytes (which are the bytes the relay serves), in store order: {@code seq} ascending, the
 * order the relay stored them in, so an import of the file applies them in that order again.
 *
 * <p>It reads the tenant DB directly on a read-only connection, in ONE statement: one SQLite read
 * transaction, a consistent snapshot of the store as of its start. WAL readers never block the
 * writer, so it is safe while the relay runs (the relay's WAL cannot be checkpointed past the
 * snapshot until the export ends: it grows by what is written meanwhile).
 */
final class ExportCommand {
  private static final Set<String> VALUED = Set.of("--tenant", "--since", "--until", "--kinds", "--config");
  private static final Set<String> FLAGS = Set.of("--include-expired", "--quiet");

  private final Cli.Io io;

  ExportCommand(Cli.Io io) {
    this.io = io;
  }

  int run(List<String> argv) throws UsageException, IOException {
    if (Cli.wantsHelp(argv)) {
      return Cli.printUsage(io);
    }
    Args a = Args.parse("export", argv, VALUED, FLAGS, 0);
    String tenant = CommandSupport.tenant(a);
    long since = a.number("--since", -1, 0, Long.MAX_VALUE);
    long until = a.number("--until", -1, 0, Long.MAX_VALUE);
    if (since >= 0 && until >= 0 && since > until) {
      throw new UsageException("--since " + since + " is after --until " + until);
    }
    Set<Integer> kinds = kinds(a.value("--kinds"));
    CairnConfig config = CommandSupport.config(a, io.env());
    Path db = CommandSupport.tenantDb(config, tenant);
    if (!Files.isRegularFile(db)) {
      io.err().println("cairn export: tenant " + tenant + " has no store: " + db + " does not exist");
      return Cli.FAILED;
    }
    Query q = query(since, until, kinds, a.has("--include-expired"), System.currentTimeMillis() / 1000);
    AtomicLong lines = new AtomicLong();
    long started = System.nanoTime();
    boolean quiet = a.has("--quiet");
    try (Connection c = SqliteFiles.open(db, SqliteFiles.Role.READER);
        Progress p = Progress.start(io.err(), quiet, Progress.INTERVAL_MS, () -> "export: " + lines.get()
            + " events, " + Progress.rate(lines.get(), seconds(started)))) {
      long n = write(c, q, io.out(), lines);
      double s = seconds(started);
      if (!quiet) {
        io.err().println("export: " + n + " events of tenant " + tenant + " in " + CommandSupport.duration(s)
            + " (" + Progress.rate(n, s) + ") from " + db);
      }
      return Cli.OK;
    } catch (SQLException e) {
      io.err().println("cairn export: reading " + db + " failed after " + lines.get() + " events: " + e.getMessage());
      return Cli.FAILED;
    } catch (IOException e) {
      if (!String.valueOf(e.getMessage()).contains("Broken pipe")) { // a reader that had enough (| head) is no news
        io.err().println("cairn export: writing the output failed after " + lines.get() + " events: " + e.getMessage());
      }
      return Cli.FAILED;
    }
  }

  record Query(String sql, List<Long> params) {}

  /**
   * The statement: a scan of {@code events} in rowid (= seq) order. The filter columns are written
   * {@code +col} so that SQLite never picks one of their indexes and then sorts the result: an
   * export reads (nearly) everything anyway, in seq order, with no temporary b-tree.
   */
  static Query query(long since, long until, Set<Integer> kinds, boolean includeExpired, long now) {
    StringBuilder sql = new StringBuilder("SELECT json FROM events WHERE 1");
    List<Long> params = new ArrayList<>();
    if (!includeExpired) {
      sql.append(" AND (+expiration IS NULL OR +expiration > ?)");
      params.add(now);
    }
    if (since >= 0) {
      sql.append(" AND +created_at >= ?");
      params.add(since);
    }
    if (until >= 0) {
      sql.append(" AND +created_at <= ?");
      params.add(until);
    }
    if (!kinds.isEmpty()) {
      sql.append(" AND +kind IN (");
      boolean first = true;
      for (int k : kinds) {
        sql.append(first ? "" : ", ").append(k);
        first = false;
      }
      sql.append(")");
    }
    sql.append(" ORDER BY seq");
    return new Query(sql.toString(), params);
  }

  /** Streams the rows of {@code q} to {@code out}, one per line; returns how many. */
  static long write(Connection c, Query q, OutputStream out, AtomicLong lines) throws SQLException, IOException {
    OutputStream buffered = new BufferedOutputStream(out, 1 << 16);
    try (PreparedStatement ps = c.prepareStatement(q.sql())) {
      for (int i = 0; i < q.params().size(); i++) {
        ps.setLong(i + 1, q.params().get(i));
      }
      ps.setFetchSize(1000);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          buffered.write(rs.getBytes(1));
          buffered.write('\n');
          lines.incrementAndGet();
        }
      }
    }
    buffered.flush();
    return lines.get();
  }

  static Set<Integer> kinds(String list) throws UsageException {
    Set<Integer> kinds = new TreeSet<>();
    if (list == null) {
      return kinds;
    }
    for (String part : list.split(",")) {
      String k = part.trim();
      if (k.isEmpty()) {
        continue;
      }
      int kind;
      try {
        kind = Integer.parseInt(k);
      } catch (NumberFormatException e) {
        throw new UsageException("--kinds: \"" + k + "\" is not a kind (a whole number 0-65535)");
      }
      if (kind < 0 || kind > 65535) {
        throw new UsageException("--kinds: " + kind + " is not a kind (0-65535)");
      }
      kinds.add(kind);
    }
    if (kinds.isEmpty()) {
      throw new UsageException("--kinds needs at least one kind");
    }
    return kinds;
  }

  private static double seconds(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1e9;
  }
}
