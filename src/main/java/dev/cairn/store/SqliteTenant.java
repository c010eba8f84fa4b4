package dev.cairn.store;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A tenant on embedded SQLite as a {@link TenantStore}: the blocking {@link SqliteTenantStore} run on
 * the engine's threads (writes on the tenant's writer lane, reads on the reader pool), upkeep after
 * writes by {@link SqliteUpkeep}.
 */
final class SqliteTenant implements TenantStore {
  private final SqliteTenantStore store;
  private final TenantWriters writers;
  private final WorkerExecutor readers;
  private final SqliteUpkeep upkeep;

  SqliteTenant(SqliteTenantStore store, TenantWriters writers, WorkerExecutor readers, SqliteUpkeep upkeep) {
    this.store = store;
    this.writers = writers;
    this.readers = readers;
    this.upkeep = upkeep;
  }

  /** The blocking store underneath (the outbox and change-feed parts still run SQL on it directly). */
  SqliteTenantStore sqlite() {
    return store;
  }

  @Override
  public String tenant() {
    return store.tenant();
  }

  @Override
  public long highWaterSeq() {
    return store.highWaterSeq();
  }

  @Override
  public Future<PersistOutcome> persist(List<NostrEvent> batch, long now) {
    return writers.execute(store.tenant(), () -> store.persist(batch, now));
  }

  @Override
  public <T> Future<TakenBatch<T>> persistTaken(Supplier<List<T>> take, Function<T, NostrEvent> event) {
    return writers.execute(store.tenant(), () -> {
      List<T> batch = take.get();
      if (batch.isEmpty()) {
        return new TakenBatch<>(batch, PersistOutcome.of(List.of()), null, 0);
      }
      long started = System.nanoTime();
      try {
        PersistOutcome out = store.persist(batch.stream().map(event).toList(), System.currentTimeMillis() / 1000);
        return new TakenBatch<>(batch, out, null, System.nanoTime() - started);
      } catch (Throwable e) { // the batch is taken: its events are answered (refused) whatever went wrong
        return new TakenBatch<>(batch, null, e, System.nanoTime() - started);
      }
    });
  }

  @Override
  public boolean queuesCommits() {
    return true;
  }

  @Override
  public Future<List<StoredEvent>> query(List<Filter> filters, long seqBelow, int defaultLimit, int maxLimit,
      long now, long budgetMillis) {
    return readers.executeBlocking(
        () -> store.query(filters, seqBelow, defaultLimit, maxLimit, now, budgetMillis), false);
  }

  @Override
  public Future<Long> count(List<Filter> filters, long seqBelow, long now, long budgetMillis) {
    return readers.executeBlocking(() -> store.count(filters, seqBelow, now, budgetMillis), false);
  }

  @Override
  public Future<SyncItems> syncItems(Filter filter, int maxRecords, long now) {
    return readers.executeBlocking(() -> store.syncItems(filter, maxRecords, now), false);
  }

  @Override
  public Future<List<StoredEvent>> range(long fromSeq, long toSeq, int max) {
    return readers.executeBlocking(() -> store.range(fromSeq, toSeq, max), false);
  }

  @Override
  public Future<List<Removal>> purgeExpired(long now, int maxRows) {
    return writers.execute(store.tenant(), () -> store.purgeExpired(now, maxRows));
  }

  @Override
  public long outboxBacklog() {
    return store.outboxBacklog();
  }

  @Override
  public void afterWrite() {
    upkeep.afterWrite(store);
  }

  @Override
  public Future<Void> close() {
    return writers.execute(store.tenant(), () -> {
      store.close();
      return null;
    });
  }
}
