package dev.cairn.store;

import dev.cairn.config.StoreOptions;
import dev.cairn.config.StoreTarget;
import dev.cairn.config.TenantDirectory;
import io.vertx.core.json.JsonObject;
import dev.cairn.root.RootInbox;
import dev.cairn.store.mysql.MysqlTenant;
import dev.cairn.store.mysql.MysqlTenants;
import dev.cairn.store.signal.SignalMetrics;
import dev.cairn.store.signal.SignalPlane;
import dev.cairn.store.signal.SignalSettings;
import dev.cairn.store.feed.FeedEngine;
import dev.cairn.store.feed.FeedMetrics;
import dev.cairn.store.feed.FeedSettings;
import dev.cairn.store.feed.StoreAccess;
import dev.cairn.store.outbox.OutboxCommands;
import dev.cairn.store.outbox.SqliteOutboxStores;
import dev.cairn.store.outbox.OutboxPendingGauge;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Channels;
import dev.cairn.tree.Inbox;
import dev.cairn.tree.Supervised;
import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The only node that touches a tenant DB. Its event loop only coordinates: writes run on the
 * tenant's writer lane ({@link TenantWriters}: tenants do not wait on each other) as group commits
 * ({@link GroupCommits}), queries on a reader pool ({@link StoreReads}), NIP-40 expiry on its own clock
 * ({@link ExpirySweeps}); after a commit, the change feed ({@link FeedEngine}) and the outbox
 * ({@link OutboxCommands}).
 */
public final class DatabaseEngine extends Supervised {
  private static final Logger LOG = Logger.getLogger(DatabaseEngine.class.getName());
  /** The answer to work for a tenant this pod does not serve (any more): a runtime tenant removed meanwhile. */
  static final String UNKNOWN_TENANT = "this relay is not served here (removed or unknown tenant)";

  private final Channels channels;
  private final Path storeDir;
  private final List<String> tenantIds;
  private final int readers;
  private final int writerThreads;
  private final int maxBatch;
  private final int defaultLimit;
  private final int maxLimit;
  /** Read lock-free from any thread (the event loop, metrics); opened and replaced on worker threads only. */
  private final Map<String, TenantStore> stores = new java.util.concurrent.ConcurrentHashMap<>();
  /** {@code store.dialect} and, for mysql, where. */
  private StoreTarget target = new StoreTarget(StoreTarget.SQLITE, "", "dedicated", 8);
  /** The MySQL dialect's meta DB, registry, databases and per-tenant feed tables (null on SQLite). */
  private MysqlTenants mysql;
  /** MySQL: the seed 003 signal plane's settings and meters (null: none) and the running plane. */
  private SignalSettings signalSettings;
  private SignalMetrics signalMetrics;
  private SignalPlane signal;
  /** {@code pod.id}. */
  private String podId = "pod";
  /** The tenants served now: the config file's, plus (MySQL) the registry's runtime tenants kept by {@link #runtime}. */
  private TenantDirectory directory;
  private JsonObject relayInfo = new JsonObject();
  /** MySQL: the registry poller (issue 10); null on SQLite. */
  private RuntimeTenantSync runtime;
  /** Persists, batched into each tenant's next transaction. */
  private GroupCommits commits;
  /** NIP-40 expiry, and the retry of a tenant DB whose last write failed. */
  private ExpirySweeps sweeps;
  private MetaStore meta;
  private TenantWriters writers;
  private WorkerExecutor readerPool;
  /** SQLite: WAL checkpoints and the search indexer, off the writer's thread. */
  private SqliteUpkeep upkeep;
  private BoundedChannel<RootInbox> toRoot;
  private Inbox<DatabaseInbox> inbox;
  /** REQ, COUNT, NEG-OPEN and catch-up reads. */
  private StoreReads reads;
  /** Seed 000: outbox, ledger and search-index work for delivery. */
  private OutboxCommands outboxCommands;
  /** Seed 003: the change feed (inserts after commit, retry buffer, lazy retention, SSE page reads). */
  private FeedEngine feed;
  private FeedSettings feedSettings;
  private FeedMetrics feedMetrics;
  /** {@code limits.query_budget} in ms (0: none), its text for the client, and its meter (tenant). */
  private long queryBudgetMillis;
  private String queryBudgetText = "0s";
  private java.util.function.Consumer<String> budgetExceeded = tenant -> { };
  private java.util.function.Consumer<String> queriesDropped = tenant -> { };
  /** Which tenant DBs failed their last write, and why ({@code /readyz}). */
  private final TenantDbHealth health = new TenantDbHealth();

  public DatabaseEngine(Channels channels, Path storeDir, List<String> tenantIds, int readers, int writerThreads,
      int maxBatch,
      int defaultLimit, int maxLimit, CrashReporter root) {
    super(root);
    this.channels = channels;
    this.storeDir = storeDir;
    this.tenantIds = List.copyOf(tenantIds);
    this.readers = readers;
    this.writerThreads = writerThreads;
    this.maxBatch = maxBatch;
    this.defaultLimit = defaultLimit;
    this.maxLimit = maxLimit;
  }

  private OutboxPendingGauge pendingGauge;
  private CommitMeter commitMeter = CommitMeter.NONE;
  /** Set: no handler runs outside the DB, SQLite stores write their outbox rows done and count them here. */
  private java.util.function.IntConsumer outboxSettledOnWrite;
  /** Set: SQLite stores write their outbox rows claimed and each commit hands them to the relay. */
  private boolean outboxClaimedOnWrite;
  private boolean startupWarmup;
  private StoreOptions options;

  /** {@code cairn_store_commit_seconds} and {@code cairn_store_commit_events}; call before deploying. */
  public DatabaseEngine withCommitMeter(CommitMeter meter) {
    this.commitMeter = meter;
    return this;
  }

  /** Seed 000: the {@code cairn_outbox_pending} meter this engine keeps current; call before deploying. */
  public DatabaseEngine withOutboxGauge(OutboxPendingGauge gauge) {
    this.pendingGauge = gauge;
    return this;
  }

  /**
   * Seed 000 with nothing to deliver outside the DB ({@code outbox.backend=db}, no forward relays): the
   * SQLite stores write their outbox rows done, counted into {@code delivered}, and no claim transaction
   * follows each write. Call before deploying.
   */
  public DatabaseEngine withOutboxSettledOnWrite(java.util.function.IntConsumer delivered) {
    this.outboxSettledOnWrite = delivered;
    return this;
  }

  /**
   * Seed 000 with the relay to NATS ({@code outbox.backend=nats}): the SQLite stores write their outbox
   * rows claimed by this process and each commit hands them to delivery, which publishes them at once
   * (no claim transaction, no second read of the event). Call before deploying.
   */
  public DatabaseEngine withOutboxClaimedOnWrite(boolean claimed) {
    this.outboxClaimedOnWrite = claimed;
    return this;
  }

  /** The start-up warm-up's throwaway tenant (decision 0011), or null; its store lives in {@link #warmupDir}. */
  private String warmupTenant;
  private Path warmupDir;

  /**
   * SQLite: serves the start-up warm-up's tenant {@code id} from a store in the {@link ScratchDir}, its
   * outbox rows written done (nothing of it reaches NATS or a handler), until {@link #dropWarmupTenant}.
   * Call before deploying.
   */
  public DatabaseEngine withWarmupTenant(String id) {
    this.warmupTenant = id;
    return this;
  }

  /**
   * Closes the warm-up tenant's store and deletes its directory (the tenant must be out of the directory
   * already, and its traffic over); completes when gone. Any thread.
   */
  public Future<Void> dropWarmupTenant() {
    if (warmupTenant == null) {
      return Future.succeededFuture();
    }
    io.vertx.core.Promise<Void> dropped = io.vertx.core.Promise.promise();
    context.runOnContext(v -> {
      TenantStore gone = stores.remove(warmupTenant); // a Persist still on its way is refused (GroupCommits)
      sweeps.forget(warmupTenant);
      health.forget(warmupTenant);
      Future<Void> closed = gone == null ? Future.succeededFuture() : gone.close();
      closed.transform(ar -> vertx.executeBlocking(() -> {
        ScratchDir.delete(warmupDir);
        return null;
      }, false)).onComplete(ar -> dropped.complete());
    });
    return dropped.future();
  }

  /** {@code store.wal_vfs}, {@code store.thread_priority} and the store's timers; call before deploying. */
  public DatabaseEngine withOptions(StoreOptions options) {
    this.options = options;
    return this;
  }

  /** Whether this engine runs the store's start-up warm-up ({@link StoreWarmup}) before it reports started. */
  public DatabaseEngine withStartupWarmup(boolean warmup) {
    this.startupWarmup = warmup;
    return this;
  }

  /**
   * The warm-up tenant's store, which never fails the start either: on a volume too full for a new
   * store the relay starts without it (the warm-up's events are then refused as an unknown tenant's,
   * which still warms the rest of the path) and serves what it holds. Before, a relay restarted on a
   * nearly full disk did not start at all.
   */
  private void openWarmupTenant() {
    try {
      warmupDir = ScratchDir.newDirectory(storeDir, "warmup-tenant");
      stores.put(warmupTenant, openSqlite(warmupTenant));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "start-up warm-up: its tenant's store could not be opened, so"
          + " nothing of the warm-up is stored (" + StoreException.reason(e) + ")", e);
      ScratchDir.delete(warmupDir);
    }
  }

  /** {@link StoreWarmup}, which never fails the start: a store that cannot warm up still serves. */
  private void warmUp() {
    try {
      LOG.info("start-up warm-up: " + StoreWarmup.run(ScratchDir.newDirectory(storeDir, "warmup")));
    } catch (RuntimeException | LinkageError e) { // libsecp256k1 not loading is the sig-manager's to report
      LOG.log(Level.WARNING, "start-up warm-up of the store skipped", e);
    }
  }

  /** {@code store.dialect}, {@code store.url}, {@code store.placement}, {@code store.pool_size}; call before deploying. */
  public DatabaseEngine withStore(StoreTarget target) {
    this.target = target;
    return this;
  }

  /**
   * The live tenant set: database-engine opens the stores of runtime tenants the registry gains (MySQL) and
   * publishes them here every {@code store.tenants_poll_interval}. Call before deploying; without it only {@code tenantIds} run.
   */
  public DatabaseEngine withTenantDirectory(TenantDirectory directory, JsonObject relayInfo) {
    this.directory = directory;
    this.relayInfo = relayInfo;
    return this;
  }

  /** MySQL: the signal plane between pods (seed 003 sections 4 and 6); call before deploying. */
  public DatabaseEngine withSignalPlane(SignalSettings settings, SignalMetrics metrics) {
    this.signalSettings = settings;
    if (settings != null) {
      this.podId = settings.podId();
    }
    this.signalMetrics = metrics;
    return this;
  }

  /** Seed 003: the change feed's settings and meters; call before deploying. */
  public DatabaseEngine withFeed(FeedSettings settings, FeedMetrics metrics) {
    this.feedSettings = settings;
    this.feedMetrics = metrics;
    return this;
  }

  /**
   * {@code limits.query_budget}: a REQ or COUNT that runs longer in SQLite is stopped and answered
   * {@code CLOSED "error: ..."}; {@code exceeded} counts it per tenant, {@code dropped} the queries not run
   * because their connection closed first. Call before deploying.
   */
  public DatabaseEngine withQueryBudget(long millis, String text, java.util.function.Consumer<String> exceeded,
      java.util.function.Consumer<String> dropped) {
    this.queryBudgetMillis = Math.max(0, millis);
    this.queryBudgetText = text;
    this.budgetExceeded = exceeded;
    this.queriesDropped = dropped;
    return this;
  }

  /**
   * Null while every tenant DB answered the engine's last periodic write (the NIP-40 sweep), else which
   * did not and why: readiness without extra queries against the DBs.
   */
  public String dbProblem() {
    String meta = signal == null ? null : signal.poller().problem(5_000);
    if (meta != null) {
      return meta;
    }
    return health.problem();
  }

  /** The current seq high water of each open tenant store (every seq below it is committed). */
  public Map<String, Long> highWater() {
    Map<String, Long> hw = new HashMap<>();
    stores.forEach((t, s) -> hw.put(t, s.highWaterSeq()));
    return Map.copyOf(hw);
  }

  /** The seq high water of {@code tenant}'s open store, -1 when none is open (any thread). */
  public long highWaterOf(String tenant) {
    TenantStore s = stores.get(tenant);
    return s == null ? -1 : s.highWaterSeq();
  }

  @Override
  protected Future<?> startNode() {
    writers = new TenantWriters(context, "cairn-db-writer", writerThreads);
    readerPool = vertx.createSharedWorkerExecutor("cairn-db-reader-" + deploymentID(), readers);
    java.util.Objects.requireNonNull(options, "withOptions before deploying");
    upkeep = new SqliteUpkeep(vertx, deploymentID(), new ThreadPriority(options.threadPriority()));
    toRoot = channels.open("database-engine->root", Addresses.ROOT);
    sweeps = new ExpirySweeps(vertx, stores, target.mysql(), health, this::purged);
    Future<?> opened = target.mysql() ? openMysql() : vertx.executeBlocking(() -> {
      if (options.walVfs()) {
        SqliteWalVfs.load(); // before the first store file opens: it is the default VFS from then on
      }
      meta = MetaStore.open(storeDir.resolve("meta.db"));
      for (String t : tenantIds) {
        meta.ensureTenant(t);
        stores.put(t, openSqlite(t));
      }
      if (warmupTenant != null) {
        openWarmupTenant();
      }
      if (startupWarmup) {
        warmUp();
      }
      return null;
    });
    return opened.onSuccess(x -> {
      if (pendingGauge != null) {
        pendingGauge.source(() -> stores.values().stream().mapToLong(TenantStore::outboxBacklog).sum());
      }
      outboxCommands = new OutboxCommands(target.mysql()
              ? t -> stores.get(t) instanceof MysqlTenant m ? m.outbox() : null
              : new SqliteOutboxStores(this::sqliteOf, writers),
          channels.open("database-engine->delivery(outbox)", Addresses.DELIVERY));
      feed = target.mysql()
          ? new FeedEngine(vertx, channels, mysql.feeds(), t -> Future.succeededFuture(mysql.epoch(t)),
              feedSettings, feedMetrics)
          : new FeedEngine(vertx, channels, writers, readerPool, feedAccess(), meta::feedEpoch, feedSettings,
              feedMetrics, deploymentID());
      if (signal != null) {
        feed.notifyingOtherPods(signal::notify);
      }
      reads = new StoreReads(stores, toRoot, () -> inbox.hold(), new StoreReads.Limits(defaultLimit, maxLimit,
          queryBudgetMillis, queryBudgetText, budgetExceeded, queriesDropped),
          // SQLite: twice the reader threads, so a thread that finishes a read finds the next one queued
          // instead of waiting for the engine's loop to start it
          target.mysql() ? target.poolSize() : 2 * readers);
      // the start-up warm-up's commits are not the operator's traffic
      commits = new GroupCommits(stores, maxBatch, toRoot, health, (tenant, nanos, events) -> {
        if (!tenant.equals(warmupTenant)) {
          commitMeter.committed(tenant, nanos, events);
        }
      }, this::landed);
      inbox = new Inbox<>(vertx, Addresses.DATABASE_ENGINE, DatabaseInbox.class, this::handle);
      sweeps.start(options.expirySweepInterval().toMillis());
      stores.values().forEach(TenantStore::afterWrite); // a new search index builds itself; an old one catches up
    });
  }

  private SqliteTenant openSqlite(String tenant) {
    boolean warmup = tenant.equals(warmupTenant);
    Path dir = warmup ? warmupDir : storeDir.resolve("tenants");
    SqliteTenantStore store = SqliteTenantStore.open(dir.resolve(tenant + ".db"), readers);
    if (warmup) {
      store.settleOutboxOnWrite(delivered -> { }); // its rows are written done and counted nowhere
    } else if (outboxSettledOnWrite != null) {
      store.settleOutboxOnWrite(outboxSettledOnWrite);
    } else if (outboxClaimedOnWrite) {
      store.claimOutboxOnWrite();
    }
    return new SqliteTenant(store, writers, readerPool, upkeep);
  }

  /** Wakes the outbox consumer for rows a commit left to deliver (none when the store writes them done). */
  private void outboxWritten(String tenant, TenantStore store) {
    if (store instanceof SqliteTenant s && s.sqlite().settlesOutboxOnWrite()) {
      outboxCommands.writtenDone(tenant); // nothing to wake; the done rows still age out
    } else if (store instanceof SqliteTenant s && s.sqlite().claimsOutboxOnWrite()) {
      outboxCommands.claimedOnWrite(tenant, s.sqlite().takeClaimedOutbox());
    } else {
      outboxCommands.wake(tenant);
    }
  }

  /** MySQL: the meta DB, then every configured tenant where the registry places it (created if new). */
  private Future<?> openMysql() {
    return MysqlTenants.start(vertx, target.url(), target.poolSize(), target.placement(), podId,
        feedSettings.insertTimeout()).compose(m -> {
      mysql = m;
      List<Future<?>> tenants = new ArrayList<>();
      for (String t : tenantIds) {
        tenants.add(openMysqlTenant(m, t));
      }
      return Future.all(tenants).compose(x -> startRuntimeTenants(m)).compose(x -> startSignalPlane(m));
    });
  }

  /** MySQL: one tenant's store and feed tables, where the registry places it (registered if new). */
  private Future<Void> openMysqlTenant(MysqlTenants m, String t) {
    return m.open(t).onSuccess(store -> {
      stores.put(t, store);
      LOG.info("tenant " + t + ": " + store.placement().placement() + " in MySQL database "
          + store.placement().dbName() + ", seq high water " + store.highWaterSeq());
    }).mapEmpty();
  }

  /**
   * MySQL: the registry's runtime tenants (issue 10), opened before the engine takes messages and kept
   * current by a poller. A removed tenant's store is forgotten here (its database is left as it is); a
   * write still on its way to it is refused like one to an unknown tenant.
   */
  private Future<Void> startRuntimeTenants(MysqlTenants m) {
    if (directory == null) {
      return Future.succeededFuture();
    }
    runtime = new RuntimeTenantSync(vertx, m.store().runtimeTenants(), directory, relayInfo,
        options.tenantsPollInterval().toMillis(),
        t -> openMysqlTenant(m, t), this::forget);
    return runtime.start();
  }

  /** A removed runtime tenant: no store, feed or sweep here any more. Engine's context. */
  private void forget(String tenant) {
    TenantStore gone = stores.remove(tenant);
    if (mysql != null) {
      mysql.forget(tenant);
    }
    sweeps.forget(tenant);
    health.forget(tenant);
    if (gone != null) {
      gone.close();
    }
  }

  /** Whether {@code tenant} is served now (the live directory, else the start's list). */
  private boolean serves(String tenant) {
    return directory != null ? directory.get(tenant) != null : tenantIds.contains(tenant);
  }

  /**
   * The pods' signal plane: other pods' feed writes wake this pod's SSE sessions through the meta DB
   * only (a hint per tenant, never a query to a cold tenant DB).
   */
  private Future<Void> startSignalPlane(MysqlTenants m) {
    if (signalSettings == null) {
      return Future.succeededFuture();
    }
    BoundedChannel<dev.cairn.delivery.DeliveryInbox> wakes =
        channels.open("database-engine->delivery(signal)", Addresses.DELIVERY);
    Set<String> fixed = Set.copyOf(tenantIds);
    // Runtime tenants come and go: the directory is read at each wake, not copied at start.
    java.util.function.Supplier<Set<String>> tenants = directory == null ? () -> fixed : () -> directory.all().keySet();
    signal = new SignalPlane(vertx, m.meta(), signalSettings, signalMetrics,
        woken -> woken.stream().filter(t -> stores.containsKey(t))
            .forEach(t -> wakes.sendOwed(dev.cairn.delivery.DeliveryInbox.FeedWake.hint(t))),
        tenants);
    return signal.start();
  }

  @Override
  public Future<?> stop() {
    if (runtime != null) {
      runtime.stop();
    }
    Future<Void> feedDone = (feed == null ? Future.<Void>succeededFuture() : feed.shutdown())
        .eventually(() -> signal == null ? Future.succeededFuture() : signal.stop());
    return feedDone.eventually(this::closeStores).eventually(() -> vertx.executeBlocking(() -> {
      ScratchDir.delete(warmupDir); // stopped before the warm-up was over: its store goes all the same
      if (meta != null) {
        meta.close();
      }
      if (writers != null) {
        writers.shutdown(10_000);
      }
      return null;
    })).eventually(() -> mysql == null ? Future.succeededFuture() : mysql.close())
        .eventually(() -> readerPool.close()).eventually(() -> upkeep.close());
  }

  /** Each store closes after the writes queued before (SQLite: on its lane). */
  private Future<?> closeStores() {
    if (writers == null) {
      return Future.succeededFuture();
    }
    List<Future<?>> closed = new ArrayList<>();
    stores.values().forEach(s -> closed.add(s.close()));
    return Future.join(closed).onComplete(x -> stores.clear());
  }

  private void handle(DatabaseInbox msg) {
    if (msg instanceof DatabaseInbox.Persist p) {
      commits.add(p, inbox.hold());
    } else if (msg instanceof OutboxCommand c) {
      outboxCommands.handle(c, inbox.hold());
    } else if (msg instanceof FeedCommand f) {
      feed.handle(f, inbox.hold());
    } else if (msg instanceof DatabaseInbox.SyncRead r) {
      reads.syncRead(r);
    } else if (msg instanceof DatabaseInbox.CatchUp c) {
      reads.catchUp(c);
    } else if (msg instanceof DatabaseInbox.Query q) {
      reads.query(q);
    } else if (msg instanceof DatabaseInbox.Disconnected d) {
      reads.disconnected(d.connId());
    }
  }

  /** After a group commit that landed (its events acked): the feed, then the outbox and the search index. */
  private void landed(String tenant, TenantStore store, PersistOutcome out) {
    sweeps.written(tenant);
    feed.afterCommit(tenant, out); // seed 003: after the commit and its PersistAck, never before
    if (out.results().stream().anyMatch(r -> r instanceof PersistResult.Stored)) {
      eventsChanged(tenant, store);
    }
  }

  /** After a NIP-40 sweep: the feed's rows of what it deleted, then the outbox and the search index. */
  private void purged(String tenant, TenantStore store, List<Removal> removed) {
    if (!removed.isEmpty()) {
      eventsChanged(tenant, store);
    }
    feed.afterPurge(tenant, removed);
  }

  /** A commit or a sweep stored or deleted events: the outbox delivers their rows, the search index follows. */
  private void eventsChanged(String tenant, TenantStore store) {
    outboxWritten(tenant, store);
    store.afterWrite();
  }

  /** Seed 000: the open SQLite store of {@code tenant}, or null (none, or another dialect). */
  private SqliteTenantStore sqliteOf(String tenant) {
    return stores.get(tenant) instanceof SqliteTenant s ? s.sqlite() : null;
  }

  /**
   * Seed 003: the feed's way to a store: the cached one, or acquired again the way start opens it
   * (store re-resolution); null for a tenant that no longer exists. Blocking part on worker threads.
   */
  private StoreAccess feedAccess() {
    return new StoreAccess() {
      @Override
      public SqliteTenantStore cached(String tenant) {
        SqliteTenantStore s = sqliteOf(tenant);
        return s == null || s.isClosed() ? null : s;
      }

      @Override
      public SqliteTenantStore reacquire(String tenant) {
        if (!serves(tenant)) {
          return null;
        }
        // Worker threads only; the per-tenant lock is never taken on the event loop, which reads
        // the map without locking.
        synchronized (reopenLock(tenant)) {
          SqliteTenantStore s = sqliteOf(tenant);
          if (s == null || s.isClosed()) {
            if (target.mysql()) {
              return null;
            }
            SqliteTenant reopened = openSqlite(tenant);
            stores.put(tenant, reopened);
            s = reopened.sqlite();
          }
          return s;
        }
      }
    };
  }

  private final Map<String, Object> reopenLocks = new java.util.concurrent.ConcurrentHashMap<>();

  private Object reopenLock(String tenant) {
    return reopenLocks.computeIfAbsent(tenant, t -> new Object());
  }
}
