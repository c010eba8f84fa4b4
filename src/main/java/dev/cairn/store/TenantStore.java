package dev.cairn.store;

import dev.cairn.nostr.EventTags;
import dev.cairn.nostr.Filter;
import dev.cairn.nostr.Kinds;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistResult.Duplicate;
import dev.cairn.store.PersistResult.Rejected;
import dev.cairn.store.PersistResult.Stored;
import dev.cairn.store.outbox.OutboxWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One tenant's SQLite event store: plain JDBC, blocking, meant for worker threads of the
 * database-engine. One writer connection (group commit: a whole batch in one transaction, guarded
 * by a lock) and a pool of reader connections (WAL lets them read while the writer writes).
 *
 * <p>Semantics are CONTRACT section 3: duplicates, replaceable/addressable kinds (newest wins, ties
 * to the lowest id), NIP-09 deletions with tombstones, NIP-40 expiration, no ephemeral events.
 */
public final class TenantStore implements AutoCloseable {

  public static final String DUPLICATE_ID = "duplicate: already have this event";
  public static final String DUPLICATE_OLDER = "duplicate: have a newer version of this event";
  public static final String BLOCKED_DELETED = "blocked: deleted by its author";
  public static final String INVALID_EPHEMERAL = "invalid: ephemeral events are not stored";
  public static final String INVALID_EXPIRED = "invalid: event has expired";
  public static final String ERROR_NOT_STORED = "error: could not store event";

  /** Busy timeout of every connection, ms. */
  static final int BUSY_TIMEOUT_MS = 5000;
  /** How long a query waits for a free reader connection. */
  static final int READER_WAIT_SECONDS = 60;

  private static final Migrator MIGRATOR = new Migrator("db/sqlite");
  private static final Comparator<StoredEvent> NEWEST_FIRST =
      Comparator.comparingLong(StoredEvent::createdAt).reversed().thenComparing(StoredEvent::id);

  private final Path file;
  private final Connection writer;
  private final List<Connection> readerList;
  private final BlockingQueue<Connection> readers;
  private final ReentrantLock writeLock = new ReentrantLock();
  private volatile long highWater;
  private volatile boolean closed;

  // Writer statements, prepared once (used only under writeLock).
  private final PreparedStatement begin;
  private final PreparedStatement commit;
  private final PreparedStatement rollback;
  private final PreparedStatement savepoint;
  private final PreparedStatement release;
  private final PreparedStatement rollbackTo;
  private final PreparedStatement existsId;
  private final PreparedStatement tombstoneById;
  private final PreparedStatement tombstoneByAddress;
  private final PreparedStatement findAddress;
  private final PreparedStatement findAddressUpTo;
  private final PreparedStatement findById;
  private final PreparedStatement insertEvent;
  private final PreparedStatement insertTag;
  private final PreparedStatement upsertTombstone;
  private final PreparedStatement deleteSeq;
  private final PreparedStatement findExpired;
  /** Outbox (seed 000): the one path that writes domain events, in the same transaction. */
  private final OutboxWriter outbox;

  private TenantStore(Path file, Connection writer, List<Connection> readerList) throws SQLException {
    this.file = file;
    this.writer = writer;
    this.readerList = readerList;
    this.readers = new ArrayBlockingQueue<>(readerList.size(), false, readerList);
    begin = writer.prepareStatement("BEGIN IMMEDIATE");
    commit = writer.prepareStatement("COMMIT");
    rollback = writer.prepareStatement("ROLLBACK");
    savepoint = writer.prepareStatement("SAVEPOINT ev");
    release = writer.prepareStatement("RELEASE ev");
    rollbackTo = writer.prepareStatement("ROLLBACK TO ev");
    existsId = writer.prepareStatement("SELECT 1 FROM events WHERE id = ?");
    tombstoneById = writer.prepareStatement(
        "SELECT 1 FROM deletions WHERE target = ? AND pubkey = ?");
    tombstoneByAddress = writer.prepareStatement(
        "SELECT 1 FROM deletions WHERE target = ? AND pubkey = ? AND created_at >= ?");
    findAddress = writer.prepareStatement(
        "SELECT seq, id, created_at FROM events WHERE pubkey = ? AND kind = ? AND d_tag = ?");
    findAddressUpTo = writer.prepareStatement("SELECT seq, id FROM events"
        + " WHERE pubkey = ? AND kind = ? AND d_tag = ? AND created_at <= ?");
    findById = writer.prepareStatement("SELECT seq, kind, pubkey FROM events WHERE id = ?");
    insertEvent = writer.prepareStatement("INSERT INTO events"
        + "(id, pubkey, created_at, kind, d_tag, expiration, json) VALUES (?, ?, ?, ?, ?, ?, ?)"
        + " RETURNING seq");
    insertTag = writer.prepareStatement(
        "INSERT OR IGNORE INTO tags(seq, name, value, created_at) VALUES (?, ?, ?, ?)");
    upsertTombstone = writer.prepareStatement(
        "INSERT INTO deletions(target, pubkey, created_at, deletion_id) VALUES (?, ?, ?, ?)"
            + " ON CONFLICT(target, pubkey) DO UPDATE SET created_at = excluded.created_at,"
            + " deletion_id = excluded.deletion_id WHERE excluded.created_at > deletions.created_at");
    deleteSeq = writer.prepareStatement("DELETE FROM events WHERE seq = ?");
    findExpired = writer.prepareStatement("SELECT seq, id, kind, pubkey FROM events"
        + " WHERE expiration IS NOT NULL AND expiration <= ? ORDER BY expiration LIMIT ?");
    this.highWater = readHighWater(writer);
    this.outbox = new OutboxWriter(writer, tenantOf(file));
  }

  /**
   * Opens (creating it and its directory if needed) the tenant DB at {@code dbFile}: PRAGMAs (WAL,
   * synchronous=NORMAL, foreign_keys=ON, busy_timeout), migrations, one writer connection and
   * {@code readerConnections} (at least 1) reader connections.
   */
  public static TenantStore open(Path dbFile, int readerConnections) throws StoreException {
    Path abs = withDirectory(dbFile);
    List<Connection> opened = new ArrayList<>();
    try {
      Connection w = openConnection(abs, false);
      opened.add(w);
      MIGRATOR.migrate(w);
      List<Connection> rs = new ArrayList<>();
      for (int i = 0; i < Math.max(1, readerConnections); i++) {
        Connection r = openConnection(abs, true);
        opened.add(r);
        rs.add(r);
      }
      return new TenantStore(abs, w, rs);
    } catch (SQLException | RuntimeException e) {
      for (Connection c : opened) {
        closeQuietly(c);
      }
      if (e instanceof StoreException se) {
        throw se;
      }
      throw new StoreException("cannot open " + abs, e);
    }
  }

  /** The absolute path of a DB file whose directory now exists. */
  static Path withDirectory(Path dbFile) throws StoreException {
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

  /** Opens a connection with the store PRAGMAs; WAL switch retried like a migration race. */
  static Connection openConnection(Path file, boolean reader) throws SQLException {
    Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
    try {
      try (Statement st = c.createStatement()) {
        st.execute("PRAGMA busy_timeout = " + BUSY_TIMEOUT_MS);
        st.execute("PRAGMA foreign_keys = ON");
      }
      if (!reader) {
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
        // Checkpoints (and their fsync) run inside the commit that crosses the threshold: at the
        // default 1000 pages nearly every group commit paid one. 16384 pages = a 64 MB WAL at most.
        st.execute("PRAGMA wal_autocheckpoint = 16384");
        st.execute("PRAGMA mmap_size = 268435456");
        st.execute("PRAGMA temp_store = MEMORY");
        st.execute("PRAGMA cache_size = " + (reader ? -16_000 : -64_000));
        if (reader) {
          st.execute("PRAGMA query_only = ON");
        }
      }
      return c;
    } catch (SQLException | RuntimeException e) {
      closeQuietly(c);
      throw e;
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

  /** Highest committed store seq (0 when nothing was ever stored); never goes down. */
  public long highWaterSeq() {
    return highWater;
  }

  // ---------------------------------------------------------------------------------------- write

  /**
   * Persists a batch in ONE transaction (group commit). Events are applied in order, as if one after
   * the other; results come back in input order. Throws {@link StoreException} (nothing committed)
   * when the transaction as a whole fails.
   */
  public List<PersistResult> persistBatch(List<NostrEvent> events, long nowEpochSeconds) {
    if (events.isEmpty()) {
      return List.of();
    }
    writeLock.lock();
    try {
      ensureOpen();
      List<PersistResult> results = new ArrayList<>(events.size());
      long maxSeq = highWater;
      begin.execute();
      try {
        for (NostrEvent ev : events) {
          PersistResult r = applyIsolated(ev, nowEpochSeconds);
          if (r instanceof Stored s && s.seq() > maxSeq) {
            maxSeq = s.seq();
          }
          results.add(r);
        }
        commit.execute();
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly();
        throw e;
      }
      highWater = maxSeq;
      return results;
    } catch (SQLException e) {
      throw new StoreException("persist batch failed on " + file, e);
    } finally {
      writeLock.unlock();
    }
  }

  /** One event inside a savepoint: an error specific to this event rejects it, not the batch. */
  private PersistResult applyIsolated(NostrEvent ev, long now) throws SQLException {
    savepoint.execute();
    try {
      PersistResult r = apply(ev, now);
      enqueueOutbox(ev, r);
      release.execute();
      return r;
    } catch (SQLException e) {
      int code = e.getErrorCode() & 0xff;
      // CONSTRAINT, TOOBIG, MISMATCH, RANGE: about this event; anything else fails the batch.
      if (code != 19 && code != 18 && code != 20 && code != 25) {
        throw e;
      }
      rollbackTo.execute();
      release.execute();
      return new Rejected(ERROR_NOT_STORED);
    }
  }

  private PersistResult apply(NostrEvent ev, long now) throws SQLException {
    int kind = ev.kind();
    if (Kinds.isEphemeral(kind)) {
      return new Rejected(INVALID_EPHEMERAL);
    }
    Long expiration = EventTags.expiration(ev);
    if (expiration != null && expiration <= now) {
      return new Rejected(INVALID_EXPIRED);
    }
    if (exists(existsId, ev.id())) {
      return new Duplicate(DUPLICATE_ID);
    }
    // A deletion of a deletion has no effect (NIP-09), so kind 5 is never blocked by id.
    if (kind != Kinds.DELETION && exists(tombstoneById, ev.id(), ev.pubkey())) {
      return new Rejected(BLOCKED_DELETED);
    }
    List<Removal> removed = new ArrayList<>();
    String dTag = null;
    if (Kinds.isReplaceable(kind) || Kinds.isAddressable(kind)) {
      dTag = Kinds.isAddressable(kind) ? EventTags.dTag(ev) : "";
      String address = kind + ":" + ev.pubkey() + ":" + dTag;
      tombstoneByAddress.setString(1, address);
      tombstoneByAddress.setString(2, ev.pubkey());
      tombstoneByAddress.setLong(3, ev.createdAt());
      if (exists(tombstoneByAddress)) {
        return new Rejected(BLOCKED_DELETED);
      }
      findAddress.setString(1, ev.pubkey());
      findAddress.setInt(2, kind);
      findAddress.setString(3, dTag);
      List<Long> oldSeqs = new ArrayList<>();
      List<String> oldIds = new ArrayList<>();
      try (ResultSet rs = findAddress.executeQuery()) {
        while (rs.next()) {
          long seq = rs.getLong(1);
          String id = rs.getString(2);
          long createdAt = rs.getLong(3);
          if (createdAt > ev.createdAt()
              || (createdAt == ev.createdAt() && id.compareTo(ev.id()) < 0)) {
            return new Duplicate(DUPLICATE_OLDER);
          }
          oldSeqs.add(seq);
          oldIds.add(id);
        }
      }
      for (int i = 0; i < oldSeqs.size(); i++) {
        long seq = oldSeqs.get(i);
        delete(seq);
        removed.add(new Removal(oldIds.get(i), kind, ev.pubkey(), seq, RemovalReason.REPLACED));
      }
    }
    insertEvent.setString(1, ev.id());
    insertEvent.setString(2, ev.pubkey());
    insertEvent.setLong(3, ev.createdAt());
    insertEvent.setInt(4, kind);
    insertEvent.setString(5, dTag);
    if (expiration == null) {
      insertEvent.setNull(6, java.sql.Types.INTEGER);
    } else {
      insertEvent.setLong(6, expiration);
    }
    insertEvent.setString(7, ev.json());
    long seq;
    try (ResultSet rs = insertEvent.executeQuery()) {
      if (!rs.next()) {
        throw new SQLException("INSERT returned no seq");
      }
      seq = rs.getLong(1);
    }
    int tags = 0;
    for (List<String> tag : ev.tags()) {
      if (tag.size() >= 2 && tag.get(0).length() == 1) {
        insertTag.setLong(1, seq);
        insertTag.setString(2, tag.get(0));
        insertTag.setString(3, tag.get(1));
        insertTag.setLong(4, ev.createdAt());
        insertTag.addBatch();
        tags++;
      }
    }
    if (tags > 0) {
      insertTag.executeBatch();
    }
    if (kind == Kinds.DELETION) {
      applyDeletion(ev, removed);
    }
    return new Stored(seq, removed);
  }

  /** NIP-09: e and a tags of a stored kind 5 event, author only; records tombstones. */
  private void applyDeletion(NostrEvent del, List<Removal> removed) throws SQLException {
    for (List<String> tag : del.tags()) {
      if (tag.size() < 2) {
        continue;
      }
      String name = tag.get(0);
      String value = tag.get(1);
      if (name.equals("e")) {
        tombstone(value, del);
        findById.setString(1, value);
        long seq = -1;
        int kind = 0;
        String pubkey = null;
        try (ResultSet rs = findById.executeQuery()) {
          if (rs.next()) {
            seq = rs.getLong(1);
            kind = rs.getInt(2);
            pubkey = rs.getString(3);
          }
        }
        if (seq >= 0 && kind != Kinds.DELETION && del.pubkey().equals(pubkey)) {
          delete(seq);
          removed.add(new Removal(value, kind, pubkey, seq, RemovalReason.NIP09));
        }
      } else if (name.equals("a")) {
        String[] parts = value.split(":", 3);
        if (parts.length < 2 || !isDigits(parts[0])) {
          continue;
        }
        int kind = Integer.parseInt(parts[0]);
        String pubkey = parts[1];
        if (!pubkey.equals(del.pubkey())
            || !(Kinds.isReplaceable(kind) || Kinds.isAddressable(kind))) {
          continue;
        }
        String d = Kinds.isAddressable(kind) && parts.length == 3 ? parts[2] : "";
        tombstone(kind + ":" + pubkey + ":" + d, del);
        findAddressUpTo.setString(1, pubkey);
        findAddressUpTo.setInt(2, kind);
        findAddressUpTo.setString(3, d);
        findAddressUpTo.setLong(4, del.createdAt());
        List<Long> seqs = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        try (ResultSet rs = findAddressUpTo.executeQuery()) {
          while (rs.next()) {
            seqs.add(rs.getLong(1));
            ids.add(rs.getString(2));
          }
        }
        for (int i = 0; i < seqs.size(); i++) {
          delete(seqs.get(i));
          removed.add(new Removal(ids.get(i), kind, pubkey, seqs.get(i), RemovalReason.NIP09));
        }
      }
    }
  }

  private static boolean isDigits(String s) {
    if (s.isEmpty() || s.length() > 9) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private void tombstone(String target, NostrEvent del) throws SQLException {
    upsertTombstone.setString(1, target);
    upsertTombstone.setString(2, del.pubkey());
    upsertTombstone.setLong(3, del.createdAt());
    upsertTombstone.setString(4, del.id());
    upsertTombstone.executeUpdate();
  }

  private void delete(long seq) throws SQLException {
    deleteSeq.setLong(1, seq);
    deleteSeq.executeUpdate();
  }

  private static boolean exists(PreparedStatement ps, String... params) throws SQLException {
    for (int i = 0; i < params.length; i++) {
      ps.setString(i + 1, params[i]);
    }
    return exists(ps);
  }

  private static boolean exists(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next();
    }
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
      List<Removal> out = new ArrayList<>();
      begin.execute();
      try {
        findExpired.setLong(1, nowEpochSeconds);
        findExpired.setInt(2, maxRows);
        try (ResultSet rs = findExpired.executeQuery()) {
          while (rs.next()) {
            out.add(new Removal(rs.getString(2), rs.getInt(3), rs.getString(4), rs.getLong(1),
                RemovalReason.EXPIRED));
          }
        }
        for (Removal r : out) {
          delete(r.seq());
        }
        outbox.enqueue(outbox.eventsOf(out, System.currentTimeMillis()));
        commit.execute();
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly();
        throw e;
      }
      return out;
    } catch (SQLException e) {
      throw new StoreException("purge failed on " + file, e);
    } finally {
      writeLock.unlock();
    }
  }

  private void rollbackQuietly() {
    try {
      rollback.execute();
    } catch (SQLException ignored) {
      // no transaction open
    }
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
    List<FilterSql.Where> wheres = new ArrayList<>();
    List<Integer> limits = new ArrayList<>();
    for (Filter f : filters) {
      int limit = f.limit() == null ? Math.min(defaultLimit, maxLimit) : Math.min(f.limit(), maxLimit);
      if (limit <= 0) {
        continue;
      }
      FilterSql.Where w = FilterSql.where(f, seqBelow, nowEpochSeconds);
      if (w != null) {
        wheres.add(w);
        limits.add(limit);
      }
    }
    if (wheres.isEmpty()) {
      return List.of();
    }
    return withReader(c -> {
      Map<String, StoredEvent> byId = new LinkedHashMap<>();
      boolean tx = wheres.size() > 1;
      if (tx) {
        execute(c, "BEGIN"); // one snapshot for the whole union
      }
      try {
        for (int i = 0; i < wheres.size(); i++) {
          FilterSql.Where w = wheres.get(i);
          String sql = selectSql(w);
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            FilterSql.bind(ps, w.params());
            ps.setInt(w.params().size() + 1, limits.get(i));
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                String id = rs.getString(2);
                if (!byId.containsKey(id)) {
                  byId.put(id, new StoredEvent(rs.getLong(1), id, rs.getLong(3), rs.getString(4)));
                }
              }
            }
          }
        }
      } finally {
        if (tx) {
          execute(c, "COMMIT");
        }
      }
      List<StoredEvent> out = new ArrayList<>(byId.values());
      if (wheres.size() > 1) {
        out.sort(NEWEST_FIRST);
      }
      return out;
    });
  }

  /** NIP-45: how many distinct stored events match any filter (limits ignored). Thread-safe. */
  public long count(List<Filter> filters, long seqBelow, long nowEpochSeconds) {
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
    StringBuilder sql = new StringBuilder("SELECT COUNT(*) FROM (");
    List<Object> params = new ArrayList<>();
    for (int i = 0; i < wheres.size(); i++) {
      if (i > 0) {
        sql.append(" UNION ");
      }
      sql.append("SELECT e.seq FROM ").append(wheres.get(i).from()).append(" WHERE ")
          .append(wheres.get(i).sql());
      params.addAll(wheres.get(i).params());
    }
    sql.append(')');
    return withReader(c -> {
      try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
        FilterSql.bind(ps, params);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? rs.getLong(1) : 0L;
        }
      }
    });
  }

  private static String selectSql(FilterSql.Where w) {
    return "SELECT e.seq, e.id, e.created_at, e.json FROM " + w.from() + " WHERE " + w.sql()
        + " ORDER BY " + w.orderBy() + " LIMIT ?";
  }

  /** Query plan lines for the history query of one filter (diagnostics and tests). */
  List<String> explainQuery(Filter f, long seqBelow, int limit, long now) {
    FilterSql.Where w = FilterSql.where(f, seqBelow, now);
    if (w == null) {
      return List.of();
    }
    String sql = "EXPLAIN QUERY PLAN " + selectSql(w);
    return withReader(c -> {
      List<String> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        FilterSql.bind(ps, w.params());
        ps.setInt(w.params().size() + 1, limit);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(rs.getString("detail"));
          }
        }
      }
      return out;
    });
  }

  @FunctionalInterface
  private interface ReaderWork<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T withReader(ReaderWork<T> work) {
    ensureOpen();
    Connection c;
    try {
      c = readers.poll(READER_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
      if (c == null) {
        throw new StoreException("no reader connection free within " + READER_WAIT_SECONDS
            + " s (closed or overloaded): " + file);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted waiting for a reader connection", e);
    }
    try {
      ensureOpen();
      return work.run(c);
    } catch (SQLException e) {
      throw new StoreException("query failed on " + file, e);
    } finally {
      readers.add(c);
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new StoreException("store closed: " + file);
    }
  }

  // --------------------------------------------------------------------------------------- outbox

  /** The tenant id: the DB file's name without {@code .db} ({@code data/tenants/<id>.db}). */
  static String tenantOf(Path file) {
    String name = file.getFileName().toString();
    return name.endsWith(".db") ? name.substring(0, name.length() - 3) : name;
  }

  /** This store's tenant id. */
  public String tenant() {
    return tenantOf(file);
  }

  /** Seed 000: the domain events of one persisted event, written inside its savepoint. */
  private void enqueueOutbox(NostrEvent ev, PersistResult r) throws SQLException {
    if (r instanceof Stored) {
      outbox.enqueue(outbox.eventsOf(ev, r, System.currentTimeMillis()));
    }
  }

  /** Work on one connection (outbox, ledger and search index SQL). */
  @FunctionalInterface
  public interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  /** Runs outbox/ledger work on the writer connection in one IMMEDIATE transaction. Blocking. */
  public <T> T outboxTransaction(SqlWork<T> work) {
    writeLock.lock();
    try {
      ensureOpen();
      begin.execute();
      try {
        T out = work.run(writer);
        commit.execute();
        return out;
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly();
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
    return withReader(work::run);
  }

  // ----------------------------------------------------------------------------------------- feed

  /**
   * Change feed (seed 003): runs {@code work} on the writer connection (autocommit on: the work runs
   * its own transaction), waiting at most {@code timeoutMillis} for the write lock. Blocking.
   */
  public <T> T withWriter(long timeoutMillis, SqlWork<T> work) {
    try {
      if (!writeLock.tryLock(timeoutMillis, java.util.concurrent.TimeUnit.MILLISECONDS)) {
        throw new StoreException("write lock not free within " + timeoutMillis + " ms: " + file);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("interrupted waiting for the write lock", e);
    }
    try {
      ensureOpen();
      return work.run(writer);
    } catch (SQLException e) {
      throw new StoreException("feed write failed on " + file, e);
    } finally {
      writeLock.unlock();
    }
  }

  /** Change feed: read-only work on a reader connection. Blocking. */
  public <T> T withReaderConnection(SqlWork<T> work) {
    return withReader(work::run);
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
      closeQuietly(writer);
    } finally {
      writeLock.unlock();
    }
    for (Connection r : readerList) {
      Connection taken = null;
      try {
        taken = readers.poll(10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (taken == null) {
        break;
      }
    }
    for (Connection r : readerList) {
      closeQuietly(r);
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      c.close();
    } catch (SQLException ignored) {
      // closing anyway
    }
  }
}
