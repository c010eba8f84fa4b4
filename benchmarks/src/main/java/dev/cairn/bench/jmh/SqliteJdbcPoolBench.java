package dev.cairn.bench.jmh;

import dev.cairn.nostr.Hex;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.jdbcclient.JDBCPool;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Issue 10 (docs/decisions/0006-sqlite-stays-on-jdbc.md): does driving SQLite through vertx-jdbc-client's
 * {@link JDBCPool} (the io.vertx.sqlclient API the MySQL dialect uses) cost the SQLite path speed?
 *
 * <p>The shape of our group commit: one transaction inserting a batch of {@code n} events into a table shaped
 * like {@code events} (seq given by the writer, id/pubkey as 32-byte BLOBs, json BLOB, the product's indexes)
 * plus 3 {@code tag_index} rows per event (random 63-bit keys, like TagKey's hashes). Same file settings as the
 * product's writer when decision 0006 was measured (SqliteFiles: WAL, synchronous=NORMAL, 8 KB pages, which
 * new product files replaced with 4 KB since, busy_timeout, mmap, cache, no
 * auto-checkpoint; a separate connection checkpoints between iterations, off the measured path). Three ways:
 * <ul>
 *   <li>{@code writeJdbc}: plain JDBC on the calling thread, statements prepared once and reused, BEGIN
 *       IMMEDIATE, addBatch/executeBatch for both tables, COMMIT (SqliteTenantStore's shape, minus the reads
 *       and rules of a real persist);
 *   <li>{@code writeJdbcOnWorker}: the same, submitted to a 1-thread Vert.x worker executor and awaited (the
 *       thread hop the product pays to leave the event loop, which the pool pays internally);
 *   <li>{@code writeJdbcPool}: {@code pool.withTransaction(conn -> conn.preparedQuery(..).executeBatch(tuples)
 *       .compose(.. tag rows ..))} on a JDBCPool of 1 connection over a DataSource opening the same PRAGMAs.
 * </ul>
 * Score: the {@code events} secondary metric is events/s; the primary is transactions/s. The read
 * benchmarks fetch one stored event by id (a REQ {"ids":[..]} point read) on a read-only connection: reused
 * PreparedStatement on the calling thread, the same on a worker, and {@code pool.preparedQuery(..).execute}.
 * Event rows are derived from the generator's events (real JSON sizes, 200 authors, kinds 1/7) with fresh
 * random ids; the row values are built inside the measured call for every variant alike.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class SqliteJdbcPoolBench {

  static final String SCHEMA = """
      CREATE TABLE IF NOT EXISTS events (
        seq        INTEGER PRIMARY KEY AUTOINCREMENT,
        id         BLOB    NOT NULL UNIQUE,
        pubkey     BLOB    NOT NULL,
        created_at INTEGER NOT NULL,
        kind       INTEGER NOT NULL,
        d_tag      TEXT,
        expiration INTEGER,
        json       BLOB    NOT NULL
      );
      CREATE INDEX IF NOT EXISTS events_created ON events(created_at DESC);
      CREATE INDEX IF NOT EXISTS events_pubkey ON events(pubkey, created_at DESC);
      CREATE INDEX IF NOT EXISTS events_kind ON events(kind, created_at DESC);
      CREATE INDEX IF NOT EXISTS events_address ON events(pubkey, kind, d_tag) WHERE d_tag IS NOT NULL;
      CREATE INDEX IF NOT EXISTS events_expiration ON events(expiration) WHERE expiration IS NOT NULL;
      CREATE TABLE IF NOT EXISTS tag_index (
        k          INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        seq        INTEGER NOT NULL,
        PRIMARY KEY (k, created_at, seq)
      ) WITHOUT ROWID;
      """;
  static final String INSERT_EVENT = "INSERT INTO events(seq, id, pubkey, created_at, kind, d_tag, expiration, json)"
      + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
  static final String INSERT_TAG = "INSERT OR IGNORE INTO tag_index(k, created_at, seq) VALUES (?, ?, ?)";
  static final String BY_ID = "SELECT seq, pubkey, kind, created_at, d_tag, json FROM events WHERE id = ?";
  static final int TAGS_PER_EVENT = 3;

  /** Opens a connection with SqliteFiles' PRAGMAs (writer: WAL, no auto-checkpoint; reader: query_only). */
  static Connection open(Path file, boolean reader) throws SQLException {
    boolean fresh = !Files.exists(file);
    Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
    try (Statement st = c.createStatement()) {
      st.execute("PRAGMA busy_timeout = 5000");
      st.execute("PRAGMA foreign_keys = ON");
      if (fresh && !reader) {
        st.execute("PRAGMA page_size = 8192");
      }
      if (!reader) {
        try (ResultSet rs = st.executeQuery("PRAGMA journal_mode = WAL")) {
          if (!rs.next() || !"wal".equalsIgnoreCase(rs.getString(1))) {
            throw new SQLException("no WAL");
          }
        }
      }
      st.execute("PRAGMA synchronous = NORMAL");
      st.execute("PRAGMA wal_autocheckpoint = 0");
      st.execute("PRAGMA journal_size_limit = 67108864");
      st.execute("PRAGMA mmap_size = 268435456");
      st.execute("PRAGMA temp_store = MEMORY");
      st.execute("PRAGMA cache_size = " + (reader ? -16_000 : -64_000));
      if (reader) {
        st.execute("PRAGMA query_only = ON");
      }
    }
    return c;
  }

  /** A DataSource handing out connections opened by {@link #open}, for JDBCPool. */
  static DataSource dataSource(Path file, boolean reader) {
    return new DataSource() {
      @Override
      public Connection getConnection() throws SQLException {
        return open(file, reader);
      }

      @Override
      public Connection getConnection(String user, String password) throws SQLException {
        return open(file, reader);
      }

      @Override
      public PrintWriter getLogWriter() {
        return null;
      }

      @Override
      public void setLogWriter(PrintWriter out) {}

      @Override
      public void setLoginTimeout(int seconds) {}

      @Override
      public int getLoginTimeout() {
        return 0;
      }

      @Override
      public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
      }

      @Override
      public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
      }

      @Override
      public boolean isWrapperFor(Class<?> iface) {
        return false;
      }
    };
  }

  static <T> T await(Future<T> f) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return z ^ (z >>> 33);
  }

  /** A random-looking 32-byte id for store sequence {@code seq} (ids are hashes: random index positions). */
  static byte[] idOf(long seq, long salt) {
    byte[] id = new byte[32];
    for (int w = 0; w < 4; w++) {
      long v = mix(seq * 4 + w + salt);
      for (int b = 0; b < 8; b++) {
        id[w * 8 + b] = (byte) (v >>> (8 * b));
      }
    }
    return id;
  }

  /** Event templates: pubkey bytes, kind, created_at and JSON of the generator's events. */
  static final class Templates {
    final byte[][] pubkeys;
    final int[] kinds;
    final long[] createdAt;
    final byte[][] json;

    Templates() {
      List<NostrEvent> evs = Fixtures.parsed(Fixtures.lines(2000, 200, "1:70,7:30"));
      int n = evs.size();
      pubkeys = new byte[n][];
      kinds = new int[n];
      createdAt = new long[n];
      json = new byte[n][];
      for (int i = 0; i < n; i++) {
        NostrEvent e = evs.get(i);
        pubkeys[i] = Hex.decode(e.pubkey());
        kinds[i] = e.kind();
        createdAt[i] = e.createdAt();
        json[i] = e.json();
      }
    }

    int size() {
      return json.length;
    }
  }

  /** A fresh database file in a temp directory, its schema, and a checkpointer connection. */
  public abstract static class Db {
    Path dir;
    Path file;
    Templates templates;
    Connection checkpointer;
    long seq;
    long salt;

    void create() throws Exception {
      templates = new Templates();
      dir = Files.createTempDirectory("cairn-jmh-jdbcpool");
      file = dir.resolve("bench.db");
      checkpointer = open(file, false);
      try (Statement st = checkpointer.createStatement()) {
        st.executeUpdate(SCHEMA);
      }
      salt = new SplittableRandom(7).nextLong();
    }

    /** The product checkpoints on its own connection, off the writer's path: here between iterations. */
    @TearDown(Level.Iteration)
    public void checkpoint() throws SQLException {
      try (Statement st = checkpointer.createStatement()) {
        st.execute("PRAGMA wal_checkpoint(TRUNCATE)");
      }
    }

    void removeFiles() throws Exception {
      checkpointer.close();
      try (Stream<Path> s = Files.walk(dir)) {
        s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }

    /** Checks what a variant wrote: BLOB ids and JSON, 3 tag rows per event. */
    void check() throws SQLException {
      try (Statement st = checkpointer.createStatement();
          ResultSet rs = st.executeQuery("SELECT typeof(id), typeof(pubkey), typeof(json), length(id),"
              + " (SELECT count(*) FROM events), (SELECT count(*) FROM tag_index) FROM events LIMIT 1")) {
        if (rs.next()) {
          if (!"blob".equals(rs.getString(1)) || !"blob".equals(rs.getString(2)) || !"blob".equals(rs.getString(3))
              || rs.getInt(4) != 32 || rs.getLong(6) != TAGS_PER_EVENT * rs.getLong(5)) {
            throw new IllegalStateException("unexpected rows: " + rs.getString(1) + " " + rs.getString(2) + " "
                + rs.getString(3) + " " + rs.getInt(4) + " " + rs.getLong(5) + " " + rs.getLong(6));
          }
        }
      }
    }
  }

  /** Events stored, reported per second as the secondary metric "events". */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Events {
    public long events;

    @Setup(Level.Iteration)
    public void reset() {
      events = 0;
    }
  }

  /** (a) plain JDBC: one writer connection, statements prepared once. */
  @State(Scope.Thread)
  public static class Jdbc extends Db {
    @Param({"1", "50", "500"})
    public int n;

    Connection writer;
    PreparedStatement begin;
    PreparedStatement commit;
    PreparedStatement rollback;
    PreparedStatement insertEvent;
    PreparedStatement insertTag;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      create();
      writer = open(file, false);
      begin = writer.prepareStatement("BEGIN IMMEDIATE");
      commit = writer.prepareStatement("COMMIT");
      rollback = writer.prepareStatement("ROLLBACK");
      insertEvent = writer.prepareStatement(INSERT_EVENT);
      insertTag = writer.prepareStatement(INSERT_TAG);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      check();
      writer.close();
      removeFiles();
    }

    /** One group commit of {@code n} new events and their tag rows. */
    int write() {
      try {
        begin.execute();
        try {
          for (int k = 0; k < n; k++) {
            long s = ++seq;
            int t = (int) (s % templates.size());
            long createdAt = templates.createdAt[t];
            insertEvent.setLong(1, s);
            insertEvent.setBytes(2, idOf(s, salt));
            insertEvent.setBytes(3, templates.pubkeys[t]);
            insertEvent.setLong(4, createdAt);
            insertEvent.setInt(5, templates.kinds[t]);
            insertEvent.setNull(6, java.sql.Types.VARCHAR);
            insertEvent.setNull(7, java.sql.Types.INTEGER);
            insertEvent.setBytes(8, templates.json[t]);
            insertEvent.addBatch();
            for (int j = 0; j < TAGS_PER_EVENT; j++) {
              insertTag.setLong(1, mix(s * TAGS_PER_EVENT + j) >>> 1);
              insertTag.setLong(2, createdAt);
              insertTag.setLong(3, s);
              insertTag.addBatch();
            }
          }
          insertEvent.executeBatch();
          insertTag.executeBatch();
          commit.execute();
          return n;
        } catch (SQLException | RuntimeException e) {
          rollback.execute();
          throw e;
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** (a') plain JDBC as in (a), run on a 1-thread Vert.x worker executor and awaited. */
  @State(Scope.Thread)
  public static class JdbcOnWorker extends Jdbc {
    Vertx vertx;
    WorkerExecutor worker;

    @Setup(Level.Trial)
    public void startWorker() {
      vertx = Vertx.vertx();
      worker = vertx.createSharedWorkerExecutor("bench-sqlite-writer", 1);
    }

    @TearDown(Level.Trial)
    public void stopWorker() {
      worker.close();
      await(vertx.close());
    }

    int writeOnWorker() {
      return await(worker.executeBlocking(this::write, true));
    }
  }

  /** (b) vertx-jdbc-client: JDBCPool of one connection, withTransaction + executeBatch. */
  @State(Scope.Thread)
  public static class OnPool extends Db {
    @Param({"1", "50", "500"})
    public int n;

    Vertx vertx;
    Pool pool;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      create();
      vertx = Vertx.vertx();
      pool = JDBCPool.pool(vertx, dataSource(file, false), new PoolOptions().setMaxSize(1));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      await(pool.close());
      await(vertx.close());
      check();
      removeFiles();
    }

    int write() {
      List<Tuple> events = new ArrayList<>(n);
      List<Tuple> tags = new ArrayList<>(n * TAGS_PER_EVENT);
      // BLOBs go in as byte[] (bound with setObject): a Buffer is bound through Connection.createBlob(),
      // which sqlite-jdbc does not implement (SQLFeatureNotSupportedException).
      for (int k = 0; k < n; k++) {
        long s = ++seq;
        int t = (int) (s % templates.size());
        long createdAt = templates.createdAt[t];
        events.add(Tuple.tuple()
            .addLong(s)
            .addValue(idOf(s, salt))
            .addValue(templates.pubkeys[t])
            .addLong(createdAt)
            .addInteger(templates.kinds[t])
            .addString(null)
            .addLong(null)
            .addValue(templates.json[t]));
        for (int j = 0; j < TAGS_PER_EVENT; j++) {
          tags.add(Tuple.of(mix(s * TAGS_PER_EVENT + j) >>> 1, createdAt, s));
        }
      }
      await(pool.withTransaction(conn -> conn.preparedQuery(INSERT_EVENT).executeBatch(events)
          .compose(r -> conn.preparedQuery(INSERT_TAG).executeBatch(tags))));
      return n;
    }
  }

  /** A database of 20,000 stored events, the ids to look up, and the read side of each variant. */
  public abstract static class ReadDb extends Db {
    static final int STORED = 20_000;
    byte[][] ids;
    int next;

    void fill() throws Exception {
      create();
      Jdbc w = new Jdbc();
      w.n = 500;
      w.templates = templates;
      w.file = file;
      w.salt = salt;
      w.writer = open(file, false);
      w.begin = w.writer.prepareStatement("BEGIN IMMEDIATE");
      w.commit = w.writer.prepareStatement("COMMIT");
      w.rollback = w.writer.prepareStatement("ROLLBACK");
      w.insertEvent = w.writer.prepareStatement(INSERT_EVENT);
      w.insertTag = w.writer.prepareStatement(INSERT_TAG);
      for (int i = 0; i < STORED / w.n; i++) {
        w.write();
      }
      w.writer.close();
      checkpoint();
      ids = new byte[STORED][];
      SplittableRandom r = new SplittableRandom(11);
      for (int i = 0; i < STORED; i++) {
        ids[i] = idOf(1 + r.nextInt(STORED), salt); // stored ids, in random order
      }
    }

    byte[] nextId() {
      byte[] id = ids[next];
      next = next + 1 == ids.length ? 0 : next + 1;
      return id;
    }
  }

  /** Point reads by id, plain JDBC on a read-only connection with a reused PreparedStatement. */
  @State(Scope.Thread)
  public static class JdbcReader extends ReadDb {
    Connection reader;
    PreparedStatement byId;
    Vertx vertx;
    WorkerExecutor worker;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      fill();
      reader = open(file, true);
      byId = reader.prepareStatement(BY_ID);
      vertx = Vertx.vertx();
      worker = vertx.createSharedWorkerExecutor("bench-sqlite-reader", 1);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      worker.close();
      await(vertx.close());
      reader.close();
      removeFiles();
    }

    byte[] read() {
      try {
        byId.setBytes(1, nextId());
        try (ResultSet rs = byId.executeQuery()) {
          if (!rs.next()) {
            throw new IllegalStateException("not found");
          }
          return rs.getBytes(6);
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Point reads by id through a JDBCPool of one read-only connection. */
  @State(Scope.Thread)
  public static class PoolReader extends ReadDb {
    Vertx vertx;
    Pool pool;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      fill();
      vertx = Vertx.vertx();
      pool = JDBCPool.pool(vertx, dataSource(file, true), new PoolOptions().setMaxSize(1));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      await(pool.close());
      await(vertx.close());
      removeFiles();
    }

    Buffer read() {
      RowSet<Row> rows = await(pool.preparedQuery(BY_ID).execute(Tuple.of(nextId())));
      if (rows.size() != 1) {
        throw new IllegalStateException("not found");
      }
      return rows.iterator().next().getBuffer(5);
    }
  }

  @Benchmark
  public int writeJdbc(Jdbc s, Events c) {
    int n = s.write();
    c.events += n;
    return n;
  }

  @Benchmark
  public int writeJdbcOnWorker(JdbcOnWorker s, Events c) {
    int n = s.writeOnWorker();
    c.events += n;
    return n;
  }

  @Benchmark
  public int writeJdbcPool(OnPool s, Events c) {
    int n = s.write();
    c.events += n;
    return n;
  }

  @Benchmark
  public byte[] readByIdJdbc(JdbcReader s) {
    return s.read();
  }

  @Benchmark
  public byte[] readByIdJdbcOnWorker(JdbcReader s) {
    return await(s.worker.executeBlocking(s::read, true));
  }

  @Benchmark
  public Buffer readByIdJdbcPool(PoolReader s) {
    return s.read();
  }
}
