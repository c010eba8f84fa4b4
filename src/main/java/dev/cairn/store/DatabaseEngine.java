package dev.cairn.store;

import dev.cairn.root.RootInbox;
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
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The only node that touches a tenant DB. Its event loop only coordinates: writes run on the
 * tenant's writer lane ({@link TenantWriters}: tenants do not wait on each other), queries on a
 * reader pool. Group commit: every Persist that arrives while
 * a commit runs waits in {@code pending} and goes into the next transaction (at most
 * {@code store.max_batch}); each is acked after its commit. Pending work keeps its upstream credit
 * until done, so root's channel bounds the queue.
 */
public final class DatabaseEngine extends Supervised {
  private static final Logger LOG = Logger.getLogger(DatabaseEngine.class.getName());
  private static final long EXPIRY_SWEEP_MS = 60_000;
  /** Writes within this delay share one checkpoint. */
  private static final long CHECKPOINT_DELAY_MS = 250;
  private static final int WAL_BACKLOG_WARN_FRAMES = 100_000;
  /** Outbox rows the search indexer applies per transaction, and transactions per run before others' turn. */
  private static final int SEARCH_STEP_ROWS = 2_000;
  private static final int SEARCH_STEPS_PER_RUN = 50;

  private record Pending(DatabaseInbox.Persist persist, Runnable release) {}

  private final Channels channels;
  private final Path storeDir;
  private final List<String> tenantIds;
  private final int readers;
  private final int writerThreads;
  private final int maxBatch;
  private final int defaultLimit;
  private final int maxLimit;
  /** Read lock-free from any thread (the event loop, metrics); opened and replaced on worker threads only. */
  private final Map<String, SqliteTenantStore> stores = new java.util.concurrent.ConcurrentHashMap<>();
  private final Map<String, List<Pending>> pending = new HashMap<>();
  private final Map<String, Boolean> committing = new HashMap<>();
  private MetaStore meta;
  private TenantWriters writers;
  private WorkerExecutor readerPool;
  /** WAL checkpoints, off the writer's thread (see {@link SqliteTenantStore#checkpoint}). */
  private WorkerExecutor maintenance;
  private final Map<String, Boolean> checkpointing = new HashMap<>();
  /** The search indexer's thread (seed 000's {@code search} handler), and which tenants it is on (true: again after). */
  private WorkerExecutor searchPool;
  private final Map<String, Boolean> searching = new HashMap<>();
  private BoundedChannel<RootInbox> toRoot;
  private Inbox<DatabaseInbox> inbox;
  /** Seed 000: outbox, ledger and search-index work for delivery. */
  private OutboxCommands outboxCommands;
  /** Seed 003: the change feed (inserts after commit, retry buffer, lazy retention, SSE page reads). */
  private FeedEngine feed;
  private FeedSettings feedSettings;
  private FeedMetrics feedMetrics;
  private long expirySweepMs = EXPIRY_SWEEP_MS;
  /** {@code limits.query_budget} in ms (0: none), its text for the client, and its meter (tenant). */
  private long queryBudgetMillis;
  private String queryBudgetText = "0s";
  private java.util.function.Consumer<String> budgetExceeded = tenant -> { };
  /** Tenants whose last periodic DB write failed, with the error (written on the engine's context). */
  private final Map<String, String> dbErrors = new java.util.concurrent.ConcurrentHashMap<>();

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

  /** Seed 000: the {@code cairn_outbox_pending} meter this engine keeps current; call before deploying. */
  public DatabaseEngine withOutboxGauge(OutboxPendingGauge gauge) {
    this.pendingGauge = gauge;
    return this;
  }

  /** Seed 003: the change feed's settings and meters; call before deploying. */
  public DatabaseEngine withFeed(FeedSettings settings, FeedMetrics metrics) {
    this.feedSettings = settings;
    this.feedMetrics = metrics;
    return this;
  }

  /** How often the NIP-40 purge runs ({@code store.expiry_sweep_interval}, default 60 s); call before deploying. */
  public DatabaseEngine expirySweepEvery(long millis) {
    this.expirySweepMs = millis > 0 ? millis : EXPIRY_SWEEP_MS;
    return this;
  }

  /**
   * {@code limits.query_budget}: a REQ or COUNT that runs longer in SQLite is stopped and answered
   * {@code CLOSED "error: ..."}; {@code exceeded} counts it per tenant. Call before deploying.
   */
  public DatabaseEngine withQueryBudget(long millis, String text, java.util.function.Consumer<String> exceeded) {
    this.queryBudgetMillis = Math.max(0, millis);
    this.queryBudgetText = text;
    this.budgetExceeded = exceeded;
    return this;
  }

  /**
   * Null while every tenant DB answered the engine's last periodic write (the NIP-40 sweep), else which
   * did not and why: readiness without extra queries against the DBs.
   */
  public String dbProblem() {
    if (dbErrors.isEmpty()) {
      return null;
    }
    Map.Entry<String, String> first = dbErrors.entrySet().iterator().next();
    return "tenant " + first.getKey() + " DB failed its last write: " + first.getValue();
  }

  /** The current seq high water of each open tenant store (every seq below it is committed). */
  public Map<String, Long> highWater() {
    Map<String, Long> hw = new HashMap<>();
    stores.forEach((t, s) -> hw.put(t, s.highWaterSeq()));
    return Map.copyOf(hw);
  }

  @Override
  protected Future<?> startNode() {
    writers = new TenantWriters(context, "cairn-db-writer", writerThreads);
    readerPool = vertx.createSharedWorkerExecutor("cairn-db-reader-" + deploymentID(), readers);
    maintenance = vertx.createSharedWorkerExecutor("cairn-db-checkpoint-" + deploymentID(), 1);
    searchPool = vertx.createSharedWorkerExecutor("cairn-search-" + deploymentID(), 1);
    toRoot = channels.open("database-engine->root", Addresses.ROOT);
    return vertx.executeBlocking(() -> {
      meta = MetaStore.open(storeDir.resolve("meta.db"));
      for (String t : tenantIds) {
        meta.ensureTenant(t);
        stores.put(t, SqliteTenantStore.open(storeDir.resolve("tenants").resolve(t + ".db"), readers));
      }
      return null;
    }).onSuccess(x -> {
      if (pendingGauge != null) {
        pendingGauge.source(() -> stores.values().stream().mapToLong(SqliteTenantStore::outboxBacklog).sum());
      }
      outboxCommands = new OutboxCommands(new SqliteOutboxStores(this::storeOf, writers),
          channels.open("database-engine->delivery(outbox)", Addresses.DELIVERY));
      feed = new FeedEngine(vertx, channels, writers, readerPool, feedAccess(), meta::feedEpoch,
          feedSettings, feedMetrics, deploymentID());
      inbox = new Inbox<>(vertx, Addresses.DATABASE_ENGINE, DatabaseInbox.class, this::handle);
      vertx.setPeriodic(expirySweepMs, id -> sweepExpired());
      stores.forEach(this::searchSoon); // a new index builds itself; an old one catches up
    });
  }

  @Override
  public Future<?> stop() {
    Future<Void> feedDone = feed == null ? Future.succeededFuture() : feed.shutdown();
    return feedDone.eventually(this::closeStores).eventually(() -> vertx.executeBlocking(() -> {
      if (meta != null) {
        meta.close();
      }
      if (writers != null) {
        writers.shutdown(10_000);
      }
      return null;
    })).eventually(() -> readerPool.close()).eventually(() -> maintenance.close()).eventually(() -> searchPool.close());
  }

  /** Each store closes on its own lane, after the writes queued before. */
  private Future<?> closeStores() {
    if (writers == null) {
      return Future.succeededFuture();
    }
    List<Future<?>> closed = new ArrayList<>();
    stores.forEach((t, s) -> closed.add(writers.execute(t, () -> {
      s.close();
      return null;
    })));
    return Future.join(closed).onComplete(x -> stores.clear());
  }

  private void handle(DatabaseInbox msg) {
    if (msg instanceof DatabaseInbox.Persist p) {
      pending.computeIfAbsent(p.tenant(), t -> new ArrayList<>()).add(new Pending(p, inbox.hold()));
      commitNext(p.tenant());
    } else if (msg instanceof OutboxCommand c) {
      outboxCommands.handle(c, inbox.hold());
    } else if (msg instanceof FeedCommand f) {
      feed.handle(f, inbox.hold());
    } else if (msg instanceof DatabaseInbox.SyncRead r) {
      syncRead(r);
    } else if (msg instanceof DatabaseInbox.Query q) {
      Runnable release = inbox.hold();
      SqliteTenantStore store = stores.get(q.tenant());
      long now = System.currentTimeMillis() / 1000;
      readerPool.executeBlocking(() -> q.count()
              ? new RootInbox.HistoryDone(q.connId(), q.subId(), q.subSerial(), true, List.of(),
                  store.count(q.filters(), q.seqBelow(), now, queryBudgetMillis), null)
              : new RootInbox.HistoryDone(q.connId(), q.subId(), q.subSerial(), false,
                  store.query(q.filters(), q.seqBelow(), defaultLimit, maxLimit, now, queryBudgetMillis), 0, null),
              false)
          .onComplete(ar -> {
            release.run();
            if (ar.succeeded()) {
              toRoot.sendOwed(ar.result());
            } else if (ar.cause() instanceof QueryBudgetExceeded) {
              // The client's filter, not the store: no stack trace; the answer says what to change.
              budgetExceeded.accept(q.tenant());
              LOG.fine(() -> "tenant " + q.tenant() + ": query " + q.subId() + " stopped by limits.query_budget");
              toRoot.sendOwed(new RootInbox.HistoryDone(q.connId(), q.subId(), q.subSerial(), q.count(), List.of(), 0,
                  "error: query exceeded limits.query_budget (" + queryBudgetText + "); narrow the filter"));
            } else {
              LOG.log(Level.WARNING, "query failed for tenant " + q.tenant(), ar.cause());
              toRoot.sendOwed(new RootInbox.HistoryDone(q.connId(), q.subId(), q.subSerial(), q.count(), List.of(), 0,
                  "error: query failed"));
            }
          });
    }
  }

  /**
   * NIP-77: reads a NEG-OPEN's items on the reader pool, like a REQ's history (the event loop never
   * waits on SQLite), and builds the sorted set there too: the session gets it ready to use.
   */
  private void syncRead(DatabaseInbox.SyncRead r) {
    Runnable release = inbox.hold();
    SqliteTenantStore store = stores.get(r.tenant());
    long now = System.currentTimeMillis() / 1000;
    readerPool.executeBlocking(() -> store.syncItems(r.filter(), r.maxRecords(), now), false)
        .onComplete(ar -> {
          release.run();
          if (ar.succeeded()) {
            toRoot.sendOwed(new RootInbox.SyncReadDone(r.ticket(), ar.result(), null));
          } else {
            LOG.log(Level.WARNING, "negentropy read failed for tenant " + r.tenant(), ar.cause());
            toRoot.sendOwed(new RootInbox.SyncReadDone(r.ticket(), null, "error: query failed"));
          }
        });
  }

  /** Starts one transaction with everything pending for the tenant, unless one is running. */
  private void commitNext(String tenant) {
    List<Pending> queue = pending.get(tenant);
    if (queue == null || queue.isEmpty() || committing.getOrDefault(tenant, false)) {
      return;
    }
    List<Pending> batch = new ArrayList<>(queue.subList(0, Math.min(maxBatch, queue.size())));
    queue.subList(0, batch.size()).clear();
    committing.put(tenant, true);
    SqliteTenantStore store = stores.get(tenant);
    long now = System.currentTimeMillis() / 1000;
    writers.execute(tenant, () -> store.persist(batch.stream().map(p -> p.persist().event()).toList(), now))
        .onComplete(ar -> {
          committing.put(tenant, false);
          List<RootInbox.Persisted.Ack> acks = new ArrayList<>(batch.size());
          for (int i = 0; i < batch.size(); i++) {
            PersistResult r = ar.succeeded()
                ? ar.result().results().get(i)
                : new PersistResult.Rejected("error: could not store the event, please retry");
            acks.add(new RootInbox.Persisted.Ack(batch.get(i).persist().ticket(), r));
            batch.get(i).release().run();
          }
          if (ar.failed()) {
            LOG.log(Level.SEVERE, "commit of " + batch.size() + " events failed for tenant " + tenant, ar.cause());
          }
          toRoot.sendOwed(new RootInbox.Persisted(acks));
          if (ar.succeeded()) { // seed 003: after the commit and its PersistAck, never before
            feed.afterCommit(tenant, ar.result());
          }
          if (ar.succeeded() && ar.result().results().stream().anyMatch(r -> r instanceof PersistResult.Stored)) {
            outboxCommands.wake(tenant);
            searchSoon(tenant, store);
            checkpointSoon(tenant, store);
          }
          commitNext(tenant);
        });
  }

  /**
   * Copies the WAL into the DB file shortly after writes, one checkpoint per tenant at a time, on the
   * maintenance thread: the writer never pays for it inside a commit.
   */
  private void checkpointSoon(String tenant, SqliteTenantStore store) {
    if (checkpointing.putIfAbsent(tenant, Boolean.TRUE) != null) {
      return;
    }
    vertx.setTimer(CHECKPOINT_DELAY_MS, id -> maintenance.executeBlocking(store::checkpoint, false)
        .onComplete(ar -> {
          checkpointing.remove(tenant);
          if (ar.failed()) {
            LOG.log(Level.WARNING, "WAL checkpoint failed for tenant " + tenant, ar.cause());
          } else if (ar.result() > WAL_BACKLOG_WARN_FRAMES) {
            LOG.warning("tenant " + tenant + ": " + ar.result() + " WAL frames not yet checkpointed"
                + " (long-running readers?)");
          }
        }));
  }

  /**
   * Seed 000's {@code search} handler: the tenant's NIP-50 index follows its outbox rows on the search
   * thread (one for all tenants, in the background), off the writer. Wakes during a run run it again.
   */
  private void searchSoon(String tenant, SqliteTenantStore store) {
    Boolean running = searching.get(tenant);
    if (running != null) {
      searching.put(tenant, Boolean.TRUE); // again after this run
      return;
    }
    searching.put(tenant, Boolean.FALSE);
    searchPool.executeBlocking(() -> {
      int steps = 0;
      while (store.indexSearch(SEARCH_STEP_ROWS) && ++steps < SEARCH_STEPS_PER_RUN) {
        // keep going: caught up, or yield to other tenants after a while
      }
      return steps;
    }, false).onComplete(ar -> {
      Boolean again = searching.remove(tenant);
      if (ar.failed()) {
        LOG.log(Level.WARNING, "search indexing failed for tenant " + tenant, ar.cause());
      } else if (Boolean.TRUE.equals(again) || ar.result() >= SEARCH_STEPS_PER_RUN) {
        searchSoon(tenant, store);
      }
    });
  }

  /** Seed 000: the open store of {@code tenant}, or null. */
  private SqliteTenantStore storeOf(String tenant) {
    return stores.get(tenant);
  }

  /**
   * Seed 003: the feed's way to a store: the cached one, or acquired again the way start opens it
   * (store re-resolution); null for a tenant that no longer exists. Blocking part on worker threads.
   */
  private StoreAccess feedAccess() {
    return new StoreAccess() {
      @Override
      public SqliteTenantStore cached(String tenant) {
        SqliteTenantStore s = storeOf(tenant);
        return s == null || s.isClosed() ? null : s;
      }

      @Override
      public SqliteTenantStore reacquire(String tenant) {
        if (!tenantIds.contains(tenant)) {
          return null;
        }
        // Worker threads only; the per-tenant lock is never taken on the event loop, which reads
        // the map without locking.
        synchronized (reopenLock(tenant)) {
          SqliteTenantStore s = stores.get(tenant);
          if (s == null || s.isClosed()) {
            s = SqliteTenantStore.open(storeDir.resolve("tenants").resolve(tenant + ".db"), readers);
            stores.put(tenant, s);
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

  /** NIP-40: expired events are deleted on the engine's own clock. */
  private void sweepExpired() {
    long now = System.currentTimeMillis() / 1000;
    for (Map.Entry<String, SqliteTenantStore> e : stores.entrySet()) {
      SqliteTenantStore store = e.getValue();
      writers.execute(e.getKey(), () -> store.purgeExpired(now, 5000))
          .onSuccess(removed -> {
            if (!removed.isEmpty()) {
              outboxCommands.wake(e.getKey());
              searchSoon(e.getKey(), store);
            }
            feed.afterPurge(e.getKey(), removed);
          })
          .onComplete(ar -> {
            if (ar.succeeded()) {
              dbErrors.remove(e.getKey());
            } else {
              dbErrors.put(e.getKey(), String.valueOf(ar.cause().getMessage()));
            }
          })
          .onFailure(t -> LOG.log(Level.WARNING, "expiry sweep failed for tenant " + e.getKey(), t));
    }
  }
}
