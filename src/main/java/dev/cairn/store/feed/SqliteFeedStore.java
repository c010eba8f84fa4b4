package dev.cairn.store.feed;

import dev.cairn.store.SqliteTenantStore;
import dev.cairn.store.TenantWriters;
import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import java.util.List;
import java.util.Set;

/**
 * The feed's table work on one open SQLite tenant store, with the threads FeedEngine has always used:
 * inserts and sweep batches on the tenant's writer lane (ordered after its commits; each sweep batch a
 * task of its own so writes interleave), retry-buffer flushes on the flush pool (a hung tenant DB holds
 * a flush thread, not a writer), reads on the reader pool. SQL: {@link FeedTable}; the write lock wait
 * and every insert statement are bounded by {@code feed.insert_timeout}.
 */
public final class SqliteFeedStore implements FeedStore {
  private final String tenant;
  private final SqliteTenantStore store;
  private final TenantWriters writers;
  private final WorkerExecutor readers;
  private final WorkerExecutor flushPool;
  private final FeedSettings settings;

  public SqliteFeedStore(String tenant, SqliteTenantStore store, TenantWriters writers, WorkerExecutor readers,
      WorkerExecutor flushPool, FeedSettings settings) {
    this.tenant = tenant;
    this.store = store;
    this.writers = writers;
    this.readers = readers;
    this.flushPool = flushPool;
    this.settings = settings;
  }

  @Override
  public Future<FeedBounds> insert(List<FeedChange> changes) {
    return CallerContext.deliver(writers.execute(tenant, () -> insertNow(changes)));
  }

  @Override
  public Future<FeedBounds> flush(List<FeedChange> changes) {
    return CallerContext.deliver(flushPool.executeBlocking(() -> insertNow(changes), false));
  }

  /** Blocking: the insert in a transaction of its own, then the bounds, under the write lock. */
  private FeedBounds insertNow(List<FeedChange> changes) {
    return store.withWriter(settings.insertTimeout().toMillis(), c -> {
      FeedTable.insert(c, changes, settings.insertTimeoutSeconds());
      return FeedTable.bounds(c);
    });
  }

  @Override
  public Future<FeedBounds> bounds() {
    return CallerContext.deliver(readers.executeBlocking(() -> store.withReaderConnection(FeedTable::bounds), false));
  }

  @Override
  public Future<FeedPage> page(long after, int limit, Set<Integer> kinds, Set<String> authors) {
    return CallerContext.deliver(readers.executeBlocking(
        () -> store.withReaderConnection(c -> FeedTable.page(c, after, limit, kinds, authors)), false));
  }

  @Override
  public Future<SweepResult> sweep(long cutoffMs, int batch, int maxBatches) {
    long wait = settings.insertTimeout().toMillis();
    return CallerContext.deliver(SweepLoop.run(
        () -> writers.execute(tenant, () -> store.withWriter(wait, c -> FeedTable.sweepBatch(c, cutoffMs, batch))),
        batch, maxBatches, () -> writers.execute(tenant, () -> store.withWriter(wait, FeedTable::bounds)), tenant));
  }

  @Override
  public boolean isClosed() {
    return store.isClosed();
  }
}
