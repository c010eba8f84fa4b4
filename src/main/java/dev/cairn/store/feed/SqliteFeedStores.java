package dev.cairn.store.feed;

import dev.cairn.store.SqliteTenantStore;
import dev.cairn.store.TenantWriters;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.util.concurrent.TimeUnit;

/**
 * {@link FeedStores} over database-engine's SQLite stores ({@link StoreAccess}): a {@link SqliteFeedStore}
 * per open store, and the flush pool the retry buffer's flushes (and a store's reopen) run on:
 * {@code feed.buffer.flushers} threads, so at most that many tenants' hung DBs are waited on at once.
 */
public final class SqliteFeedStores implements FeedStores {
  private final StoreAccess access;
  private final TenantWriters writers;
  private final WorkerExecutor readers;
  private final WorkerExecutor flushPool;
  private final FeedSettings settings;

  public SqliteFeedStores(Vertx vertx, StoreAccess access, TenantWriters writers, WorkerExecutor readers,
      FeedSettings settings, String deploymentId) {
    this.access = access;
    this.writers = writers;
    this.readers = readers;
    this.settings = settings;
    this.flushPool = vertx.createSharedWorkerExecutor("cairn-feed-flush-" + deploymentId, settings.flushers(),
        settings.insertTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
  }

  @Override
  public FeedStore cached(String tenant) {
    SqliteTenantStore s = access.cached(tenant);
    return s == null || s.isClosed() ? null : of(tenant, s);
  }

  /** The reopen is blocking file work: on the flush pool, never on the event loop or a writer thread. */
  @Override
  public Future<FeedStore> reacquire(String tenant) {
    return CallerContext.deliver(flushPool.executeBlocking(() -> {
      SqliteTenantStore s = access.reacquire(tenant);
      return s == null ? null : of(tenant, s);
    }, false));
  }

  private FeedStore of(String tenant, SqliteTenantStore store) {
    return new SqliteFeedStore(tenant, store, writers, readers, flushPool, settings);
  }

  @Override
  public Future<Void> close() {
    return flushPool.close();
  }
}
