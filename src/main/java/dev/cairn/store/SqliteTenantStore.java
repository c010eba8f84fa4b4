package dev.cairn.store;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.Hex;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.feed.FeedBounds;
import dev.cairn.store.feed.FeedChange;
import dev.cairn.store.feed.FeedTable;
import dev.cairn.store.outbox.OutboxRow;
import dev.cairn.store.outbox.OutboxWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One tenant's SQLite event store: plain JDBC, blocking, for worker threads of the database-engine.
 * One writer connection (group commit: a whole batch in one transaction, guarded by a lock), a pool
 * of reader connections ({@link ReaderPool}) and one connection that runs the WAL checkpoints off the
 * writer's thread ({@link WalCheckpoints}).
 *
 * <p>What a batch does is decided by {@link WriteRules} (the semantics of CONTRACT section 3, the
 * same for every dialect); {@link SqliteEventWriter} reads what the rules need and writes what they
 * decide; {@link SqliteEventReader} answers REQ and COUNT.
 */
public final class SqliteTenantStore implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(SqliteTenantStore.class.getName());
  public static final String DUPLICATE_ID = WriteRules.DUPLICATE_ID;
  public static final String DUPLICATE_OLDER = WriteRules.DUPLICATE_OLDER;
  public static final String BLOCKED_DELETED = WriteRules.BLOCKED_DELETED;
  public static final String INVALID_EPHEMERAL = WriteRules.INVALID_EPHEMERAL;
  public static final String INVALID_EXPIRED = WriteRules.INVALID_EXPIRED;
  public static final String ERROR_NOT_STORED = "error: could not store event";

  /** Bound on one feed statement inside a group commit (the whole commit waits for it). */
  static final int FEED_STATEMENT_TIMEOUT_SECONDS = 5;

  private static final Migrator MIGRATOR = new Migrator("db/sqlite");
  private static final Migrator SEARCH_MIGRATOR = new Migrator(dev.cairn.store.outbox.SearchIndex.MIGRATIONS);

  private final Path file;
  private final String tenant;
  private final Connection writer;
  /** The writer with its kept statements (under writeLock). */
  private final Sql writerSql;
  private final ReaderPool readers;
  private final WalCheckpoints checkpoints;
  /** The search DB ({@code <tenant>.search.db}) with the tenant DB attached as {@code t}: the search indexer's. */
  private final Sql search;
  private final ReentrantLock searchLock = new ReentrantLock();
  private final ReentrantLock writeLock = new ReentrantLock();
  private volatile long highWater;
  /** Outbox rows not yet delivered (pending or claimed): counted at open, then kept by every write and settle. */
  private final java.util.concurrent.atomic.AtomicLong outboxBacklog = new java.util.concurrent.atomic.AtomicLong();
  private volatile boolean closed;

  // Writer statements (kept by writerSql, used only under writeLock).
  private static final String BEGIN = "BEGIN IMMEDIATE";
  private static final String COMMIT = "COMMIT";
  private static final String FIND_EXPIRED = "SELECT seq, id, kind, pubkey, created_at, d_tag, json FROM events"
      + " WHERE expiration IS NOT NULL AND expiration <= ? ORDER BY expiration LIMIT ?";
  private final SqliteEventWriter events;
  /** The writer connection's page cache size; under the write lock. */
  private final WriterCache writerCache = new WriterCache();
  /** Outbox (seed 000): the one path that writes domain events, in the same transaction. */
  private final OutboxWriter outbox;
  /** Set: outbox rows are written done and counted here (see {@link #settleOutboxOnWrite}). */
  private volatile java.util.function.IntConsumer settledOnWrite;
  /** Rows claimed on write by committed transactions, until the engine hands them to the relay ({@link #takeClaimedOutbox}). */
  private final ConcurrentLinkedQueue<OutboxRow> claimedOnWrite =
      new ConcurrentLinkedQueue<>();

  private SqliteTenantStore(Path file, Connection writer, List<Connection> readerList, Connection checkpointer,
      Connection search, FileChannel dbFile) throws SQLException {
    this.file = file;
    this.tenant = tenantOf(file);
    this.writer = writer;
    this.writerSql = new Sql(writer);
    this.readers = new ReaderPool(file, readerList, () -> closed);
    this.checkpoints = new WalCheckpoints(file, checkpointer, dbFile);
    this.search = new Sql(search);
    this.outbox = new OutboxWriter(writerSql, tenant);
    this.events = new SqliteEventWriter(writerSql, outbox);
    this.highWater = readHighWater(writer);
    try (Statement st = writer.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM event_queue WHERE status IN ('pending', 'processing')")) {
      outboxBacklog.set(rs.next() ? rs.getLong(1) : 0);
    }
  }

  /** Outbox rows not yet delivered ({@code cairn_outbox_pending}): current, with no query. */
  public long outboxBacklog() {
    return outboxBacklog.get();
  }

  /**
   * No handler runs outside the DB: outbox rows are written done ({@link OutboxWriter#settleOnWrite}) and
   * {@code delivered} hears how many after each commit ({@code cairn_outbox_published_total{backend="db"}}).
   * Call before the first write.
   */
  public void settleOutboxOnWrite(java.util.function.IntConsumer delivered) {
    outbox.mode(OutboxWriter.Mode.DONE);
    this.settledOnWrite = delivered;
  }

  /** Whether outbox rows are written done (no claim needs to follow a write). */
  public boolean settlesOutboxOnWrite() {
    return settledOnWrite != null;
  }

  /**
   * The relay publishes straight from the commit ({@code outbox.backend=nats}): outbox rows are written
   * claimed by this process ({@link OutboxWriter.Mode#CLAIMED}) and handed over by {@link #takeClaimedOutbox}.
   * Call before the first write.
   */
  public void claimOutboxOnWrite() {
    outbox.mode(OutboxWriter.Mode.CLAIMED);
  }

  public boolean claimsOutboxOnWrite() {
    return outbox.mode() == OutboxWriter.Mode.CLAIMED;
  }

  /** The rows claimed on write by the transactions committed since the last call, in id order. */
  public List<OutboxRow> takeClaimedOutbox() {
    List<OutboxRow> out = new ArrayList<>();
    for (OutboxRow r; (r = claimedOnWrite.poll()) != null; ) {
      out.add(r);
    }
    return out;
  }

  private void outboxCommitted() {
    outboxBacklog.addAndGet(outbox.takeWritten());
    int settled = outbox.takeSettled();
    if (settled > 0) {
      settledOnWrite.accept(settled);
    }
    claimedOnWrite.addAll(outbox.takeClaimed());
  }

  private void outboxRolledBack() {
    outbox.rolledBack();
  }

  /** {@code n} outbox rows were delivered or dead-lettered (their transaction committed). */
  public void outboxSettled(int n) {
    outboxBacklog.addAndGet(-n);
  }

  /**
   * Opens (creating it and its directory if needed) the tenant DB at {@code dbFile}: PRAGMAs (WAL,
   * synchronous=NORMAL, foreign_keys=ON, busy_timeout), migrations, one writer connection, the
   * checkpointer and {@code readerConnections} (at least 1) reader connections.
   */
  public static SqliteTenantStore open(Path dbFile, int readerConnections) throws StoreException {
    Path abs = SqliteFiles.withDirectory(dbFile);
    List<Connection> opened = new ArrayList<>();
    FileChannel flush = null;
    try {
      Connection w = SqliteFiles.open(abs, SqliteFiles.Role.WRITER);
      opened.add(w);
      MIGRATOR.migrate(w);
      Connection cp = SqliteFiles.open(abs, SqliteFiles.Role.CHECKPOINTER);
      opened.add(cp);
      Path searchFile = searchFileOf(abs);
      Connection sc = SqliteFiles.open(searchFile, SqliteFiles.Role.STANDALONE);
      opened.add(sc);
      SEARCH_MIGRATOR.migrate(sc);
      attach(sc, abs, "t");
      List<Connection> rs = new ArrayList<>();
      for (int i = 0; i < Math.max(1, readerConnections); i++) {
        Connection r = SqliteFiles.open(abs, SqliteFiles.Role.READER);
        opened.add(r);
        attach(r, searchFile, "s");
        rs.add(r);
      }
      flush = WalCheckpoints.openForFlush(abs);
      return new SqliteTenantStore(abs, w, rs, cp, sc, flush);
    } catch (SQLException | RuntimeException e) {
      for (Connection c : opened) {
        SqliteFiles.closeQuietly(c);
      }
      WalCheckpoints.closeQuietly(flush);
      throw new StoreException("cannot open " + abs, e); // a migration's failure does not name the file
    }
  }

  /** {@code <tenant>.search.db} next to {@code <tenant>.db}: the tenant's NIP-50 index. */
  public static Path searchFileOf(Path tenantFile) {
    String name = tenantFile.getFileName().toString();
    String base = name.endsWith(".db") ? name.substring(0, name.length() - 3) : name;
    return tenantFile.resolveSibling(base + ".search.db");
  }

  private static void attach(Connection c, Path other, String schema) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("ATTACH DATABASE ? AS " + schema)) {
      ps.setString(1, other.toString());
      ps.execute();
    }
  }

  private static long readHighWater(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT seq FROM sqlite_sequence WHERE name = 'events'")) {
      return rs.next() ? rs.getLong(1) : 0L;
    }
  }

  /** The DB file. */
  public Path file() {
    return file;
  }

  /** The tenant id: the DB file's name without {@code .db} ({@code data/tenants/<id>.db}). */
  static String tenantOf(Path file) {
    String name = file.getFileName().toString();
    return name.endsWith(".db") ? name.substring(0, name.length() - 3) : name;
  }

  /** This store's tenant id. */
  public String tenant() {
    return tenant;
  }

  /** Highest committed store seq (0 when nothing was ever stored); never goes down. */
  public long highWaterSeq() {
    return highWater;
  }

  // ---------------------------------------------------------------------------------------- write

  /** {@link #persist}, for callers that only want the events' results. */
  public List<PersistResult> persistBatch(List<NostrEvent> batch, long nowEpochSeconds) {
    return persist(batch, nowEpochSeconds).results();
  }

  /**
   * Persists a batch in ONE transaction (group commit), its change-feed rows included (under their own
   * savepoint, see {@link PersistOutcome}). Events are applied in order, as if one after the other;
   * results come back in input order. When the transaction fails as a whole and the batch has several
   * events, each is retried in a transaction of its own, so one event's fault (say, a constraint)
   * refuses that event only. Throws {@link StoreException} when a single event cannot be written for
   * a reason that is not its own.
   */
  public PersistOutcome persist(List<NostrEvent> batch, long nowEpochSeconds) {
    if (batch.isEmpty()) {
      return PersistOutcome.of(List.of());
    }
    writeLock.lock();
    try {
      ensureOpen();
      sizeCache(batch.size());
      try {
        PersistOutcome out = persistNow(batch, nowEpochSeconds);
        checkpoints.finishOnWriter(writerSql);
        return out;
      } catch (SQLException e) {
        if (batch.size() == 1 || !ownFault(e)) {
          if (batch.size() == 1 && ownFault(e)) {
            return PersistOutcome.of(List.of(new PersistResult.Rejected(ERROR_NOT_STORED)));
          }
          throw failure("persist batch failed on " + file, e);
        }
        List<PersistResult> results = new ArrayList<>(batch.size());
        List<FeedChange> feed = new ArrayList<>();
        FeedBounds bounds = null;
        Exception feedError = null;
        for (NostrEvent ev : batch) {
          try {
            PersistOutcome one = persistNow(List.of(ev), nowEpochSeconds);
            results.add(one.results().get(0));
            if (one.feedError() == null) {
              bounds = one.feedBounds() == null ? bounds : one.feedBounds();
            } else {
              feed.addAll(one.feed()); // only the failed ones go to the retry buffer
              feedError = one.feedError();
            }
          } catch (SQLException one) {
            if (!ownFault(one)) {
              throw failure("persist failed on " + file, one);
            }
            results.add(new PersistResult.Rejected(ERROR_NOT_STORED));
          }
        }
        return new PersistOutcome(results, feed, bounds, feedError);
      }
    } finally {
      writeLock.unlock();
    }
  }

  /** The writer's page cache for a commit of {@code events} ({@link WriterCache}); a failure only leaves it as it was. */
  private void sizeCache(int events) {
    int kib = writerCache.before(events, System.nanoTime());
    if (kib > 0) {
      try {
        writerSql.execute("PRAGMA cache_size = -" + kib);
      } catch (SQLException e) {
        LOG.log(Level.WARNING, "could not set the writer's page cache of " + file + " to " + kib + " KiB", e);
      }
    }
  }

  private PersistOutcome persistNow(List<NostrEvent> batch, long now) throws SQLException {
    try {
      writerSql.execute(BEGIN);
      WriteSnapshot state = events.fetch(WriteRules.keysOf(batch));
      WritePlan plan = WriteRules.plan(batch, state, now, highWater);
      events.apply(plan);
      // The change's time for its outbox rows and feed rows, read as late as the transaction allows: a
      // commit of a thousand events takes tens of ms, which the outbox's commit->publish time must not
      // count as the relay's delay in publishing (nothing of the batch is visible before the commit).
      long nowMs = System.currentTimeMillis();
      events.enqueueOutbox(plan, batch, nowMs);
      List<FeedChange> feed = FeedChange.of(batch, plan.results(), nowMs);
      FeedBounds bounds = null;
      Exception feedError = null;
      if (!feed.isEmpty()) {
        writerSql.execute("SAVEPOINT feed");
        try {
          FeedTable.insertRows(writerSql, feed, FEED_STATEMENT_TIMEOUT_SECONDS);
          bounds = FeedTable.bounds(writerSql).withInserted(feed.size());
          writerSql.execute("RELEASE feed");
        } catch (SQLException | RuntimeException e) {
          writerSql.execute("ROLLBACK TO feed");
          writerSql.execute("RELEASE feed");
          feedError = e;
        }
      }
      writerSql.execute(COMMIT);
      highWater = plan.highWater();
      outboxCommitted();
      return new PersistOutcome(plan.results(), feedError == null ? List.of() : feed, bounds, feedError);
    } catch (SQLException | RuntimeException e) {
      outboxRolledBack();
      writerSql.forgetFailedWork();
      throw e;
    }
  }

  /**
   * The store's failure to write, as the engine tells clients: SQLITE_FULL (13) is a full disk or quota,
   * met by a commit or by the page cache spilling mid-transaction.
   */
  private static StoreException failure(String what, SQLException e) {
    return (e.getErrorCode() & 0xff) == 13 ? new StorageFullException(what + ": storage full", e) : new StoreException(what, e);
  }

  /** CONSTRAINT, TOOBIG, MISMATCH, RANGE: about one event's data; anything else is the store's. */
  private static boolean ownFault(SQLException e) {
    int code = e.getErrorCode() & 0xff;
    return code == 19 || code == 18 || code == 20 || code == 25;
  }

  /**
   * Deletes up to {@code maxRows} rows whose NIP-40 expiration is {@code <= now}, oldest expiration
   * first, in one transaction; returns them (reason EXPIRED).
   */
  public List<Removal> purgeExpired(long nowEpochSeconds, int maxRows) {
    if (maxRows <= 0) {
      return List.of();
    }
    writeLock.lock();
    try {
      ensureOpen();
      try {
        writerSql.execute(BEGIN);
        List<StoredRow> rows = new ArrayList<>();
        PreparedStatement findExpired = writerSql.prepare(FIND_EXPIRED);
        findExpired.setLong(1, nowEpochSeconds);
        findExpired.setInt(2, maxRows);
        try (ResultSet rs = findExpired.executeQuery()) {
          while (rs.next()) {
            rows.add(new StoredRow(rs.getLong(1), Hex.encode(rs.getBytes(2)), Hex.encode(rs.getBytes(4)),
                rs.getInt(3), rs.getLong(5), rs.getString(6), rs.getBytes(7)));
          }
        }
        List<Removal> out = new ArrayList<>(rows.size());
        List<WritePlan.Op> ops = new ArrayList<>(rows.size());
        for (StoredRow r : rows) {
          ops.add(new WritePlan.Remove(r, RemovalReason.EXPIRED));
          out.add(new Removal(r.id(), r.kind(), r.pubkey(), r.seq(), RemovalReason.EXPIRED));
        }
        events.apply(new WritePlan(List.of(), ops, highWater));
        outbox.enqueue(outbox.eventsOf(out, System.currentTimeMillis()));
        writerSql.execute(COMMIT);
        outboxCommitted();
        checkpoints.finishOnWriter(writerSql);
        return out;
      } catch (SQLException | RuntimeException e) {
        outboxRolledBack();
        writerSql.forgetFailedWork();
        throw e;
      }
    } catch (SQLException e) {
      throw new StoreException("purge failed on " + file, e);
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Copies committed WAL pages into the DB file, on the caller's thread, which is not the writer's
   * ({@link WalCheckpoints#run}); returns the WAL frames left uncopied.
   */
  public int checkpoint() {
    return closed ? 0 : checkpoints.run();
  }

  /**
   * Cuts the WAL file back to nothing, on the caller's thread, which is not the writer's: for a tenant
   * that has gone quiet ({@link WalCheckpoints#cutBack}).
   */
  WalCheckpoints.Cut cutBackWal() {
    return checkpoints.cutBack();
  }

  /** Tests: the writer connection's {@code cache_size}, KiB ({@link WriterCache}). */
  int writerCacheKib() throws SQLException {
    writeLock.lock();
    try (Statement st = writer.createStatement(); ResultSet rs = st.executeQuery("PRAGMA cache_size")) {
      rs.next();
      return -rs.getInt(1);
    } finally {
      writeLock.unlock();
    }
  }

  /** Tests: WAL frames past which the writer finishes a checkpoint (default {@link WalCheckpoints#WAL_RESTART_FRAMES}). */
  void walRestartFrames(int frames) {
    checkpoints.restartFrames(frames);
  }

  // ----------------------------------------------------------------------------------------- read

  /**
   * Stored events matching any of {@code filters} with {@code seq < seqBelow}, not expired at
   * {@code now}: per filter newest first (ties lowest id) up to its limit ({@code maxLimit} caps it,
   * {@code defaultLimit} when absent, 0 = none); the union deduplicated and ordered the same way.
   * Thread-safe.
   */
  public List<StoredEvent> query(List<Filter> filters, long seqBelow, int defaultLimit, int maxLimit,
      long nowEpochSeconds) {
    return query(filters, seqBelow, defaultLimit, maxLimit, nowEpochSeconds, 0);
  }

  /**
   * {@link #query}, stopped by SQLite once it has run {@code budgetMillis} ({@code limits.query_budget};
   * {@code <= 0}: no budget): then throws {@link QueryBudgetExceeded}, with no partial answer.
   */
  public List<StoredEvent> query(List<Filter> filters, long seqBelow, int defaultLimit, int maxLimit,
      long nowEpochSeconds, long budgetMillis) {
    List<SqliteEventReader.Part> parts =
        SqliteEventReader.parts(filters, seqBelow, defaultLimit, maxLimit, nowEpochSeconds);
    if (parts.isEmpty()) {
      return List.of();
    }
    return withReader(budgetMillis, c -> SqliteEventReader.query(c, parts));
  }

  /** NIP-45: how many distinct stored events match any filter (limits ignored). Thread-safe. */
  public long count(List<Filter> filters, long seqBelow, long nowEpochSeconds) {
    return count(filters, seqBelow, nowEpochSeconds, 0);
  }

  /** {@link #count} within {@code budgetMillis}, like {@link #query(List, long, int, int, long, long)}. */
  public long count(List<Filter> filters, long seqBelow, long nowEpochSeconds, long budgetMillis) {
    List<FilterSql.Where> wheres = new ArrayList<>();
    for (Filter f : filters) {
      FilterSql.Where w = FilterSql.where(f, seqBelow, nowEpochSeconds);
      if (w != null) {
        wheres.add(w);
      }
    }
    if (wheres.isEmpty()) {
      return 0;
    }
    return withReader(budgetMillis, c -> SqliteEventReader.count(c, wheres));
  }

  /**
   * NIP-77: the (created_at, id) items of the stored events matching {@code filter} with the same
   * semantics as a REQ (not expired at {@code now}; deleted and replaced events are gone from the
   * table), {@code limit} honoured when the filter has one but no default limit; at most
   * {@code maxRecords}, else only how many matched. Thread-safe.
   */
  public SyncItems syncItems(Filter filter, int maxRecords, long nowEpochSeconds) {
    FilterSql.Where w = FilterSql.where(filter, Long.MAX_VALUE, nowEpochSeconds);
    int limit = filter.limit() == null ? -1 : filter.limit();
    if (w == null || limit == 0) {
      return new SyncItems(dev.cairn.nostr.negentropy.VectorStorage.builder(1).build(), 0);
    }
    return withReader(c -> SqliteEventReader.syncItems(c, w, limit, maxRecords));
  }

  /** Stored events with {@code fromSeq <= seq < toSeq} in seq order, at most {@code max}. Thread-safe. */
  public List<StoredEvent> range(long fromSeq, long toSeq, int max) {
    return withReader(c -> SqliteEventReader.range(c, fromSeq, toSeq, max));
  }

  /**
   * One step of the search indexer (on the caller's thread, not the writer's): applies up to
   * {@code maxRows} outbox rows to the NIP-50 index; true when there may be more to do now.
   */
  public boolean indexSearch(int maxRows) {
    if (closed || !searchLock.tryLock()) {
      return false;
    }
    try {
      ensureOpen();
      return dev.cairn.store.outbox.SearchIndex.step(search, maxRows);
    } catch (SQLException e) {
      search.forgetFailedWork();
      throw new StoreException("search indexing failed on " + file, e);
    } finally {
      searchLock.unlock();
    }
  }

  /** Query plan lines for the history query of one filter (diagnostics and tests). */
  List<String> explainQuery(Filter f, long seqBelow, int limit, long now) {
    FilterSql.Where w = FilterSql.where(SqliteEventReader.perTagValue(f).get(0), seqBelow, now);
    if (w == null) {
      return List.of();
    }
    int ids = f.ids() == null ? -1 : f.ids().size();
    return withReader(c -> SqliteEventReader.explain(c, new SqliteEventReader.Part(List.of(w), limit, ids)));
  }

  /** Work on one connection (outbox, ledger, feed and search index SQL). */
  @FunctionalInterface
  public interface SqlWork<T> {
    T run(Sql sql) throws SQLException;
  }

  private <T> T withReader(SqlWork<T> work) {
    return withReader(0, work);
  }

  /** Work on a reader connection, within {@code budgetMillis} when positive ({@link ReadDeadline}). */
  private <T> T withReader(long budgetMillis, SqlWork<T> work) {
    return readers.read(budgetMillis, work);
  }

  private void ensureOpen() {
    if (closed) {
      throw new StoreException("store closed: " + file);
    }
  }

  // -------------------------------------------------------------------------------- outbox, feed

  /** Runs outbox/ledger work on the writer connection in one IMMEDIATE transaction. Blocking. */
  public <T> T outboxTransaction(SqlWork<T> work) {
    writeLock.lock();
    try {
      ensureOpen();
      try {
        writerSql.execute(BEGIN);
        T out = work.run(writerSql);
        writerSql.execute(COMMIT);
        checkpoints.finishOnWriter(writerSql);
        return out;
      } catch (SQLException | RuntimeException e) {
        writerSql.forgetFailedWork();
        throw e;
      }
    } catch (SQLException e) {
      throw new StoreException("outbox transaction failed on " + file, e);
    } finally {
      writeLock.unlock();
    }
  }

  /** Runs read-only outbox work on a reader connection. Blocking. */
  public <T> T outboxRead(SqlWork<T> work) {
    return withReader(work);
  }

  /**
   * Change feed (seed 003): runs {@code work} on the writer connection (autocommit on: the work runs
   * its own transaction), waiting at most {@code timeoutMillis} for the write lock. Blocking.
   */
  public <T> T withWriter(long timeoutMillis, SqlWork<T> work) {
    try {
      if (!writeLock.tryLock(timeoutMillis, TimeUnit.MILLISECONDS)) {
        throw new StoreException("write lock not free within " + timeoutMillis + " ms: " + file);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted waiting for the write lock", e);
    }
    try {
      ensureOpen();
      return work.run(writerSql);
    } catch (SQLException e) {
      writerSql.forgetFailedWork();
      throw new StoreException("feed write failed on " + file, e);
    } finally {
      writeLock.unlock();
    }
  }

  /** Change feed: read-only work on a reader connection. Blocking. */
  public <T> T withReaderConnection(SqlWork<T> work) {
    return withReader(work);
  }

  /** True once closed (the feed re-resolves a closed store). */
  public boolean isClosed() {
    return closed;
  }

  // ---------------------------------------------------------------------------------------- close

  /** Closes every connection; waits for a running write, and for readers to be returned. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    writeLock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      SqliteFiles.closeQuietly(writer);
    } finally {
      writeLock.unlock();
    }
    checkpoints.closeConnection();
    searchLock.lock();
    try {
      search.clear();
      SqliteFiles.closeQuietly(search.connection());
    } finally {
      searchLock.unlock();
    }
    readers.close();
    checkpoints.closeFile(); // last: see WalCheckpoints#dbFile
  }
}
