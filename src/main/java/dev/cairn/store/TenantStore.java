package dev.cairn.store;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.Future;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One tenant's events as database-engine sees them, whichever dialect holds them: {@link SqliteTenant}
 * (embedded SQLite, JDBC on the engine's worker threads) or {@code mysql.MysqlTenant} (MySQL, MariaDB,
 * TiDB through the reactive vertx-mysql-client). The write rules ({@link WriteRules}) and the filter SQL
 * ({@link FilterSql}) are shared; each dialect only reads and writes rows. Futures complete on the
 * engine's context; nothing here blocks the caller.
 */
public interface TenantStore {
  /** The tenant id. */
  String tenant();

  /** Highest seq this pod has seen committed for the tenant (every seq below it is committed); never goes down. */
  long highWaterSeq();

  /**
   * Group commit: the batch in one transaction (change-feed and outbox rows included), applied in order;
   * results in input order. Fails when the store could not write the batch (nothing of it was written).
   */
  Future<PersistOutcome> persist(List<NostrEvent> batch, long nowEpochSeconds);

  /**
   * Group commit of the batch {@code take} hands over when the write starts ({@code event}: each item's
   * event; now: the time it starts). A store with a writer lane ({@link #queuesCommits}) takes it there,
   * so a commit asked for while the previous one runs gets everything that arrived meanwhile; this
   * default takes it at once. The future always succeeds: a failed write is {@link TakenBatch#failure}.
   */
  default <T> Future<TakenBatch<T>> persistTaken(Supplier<List<T>> take, Function<T, NostrEvent> event) {
    List<T> batch = take.get();
    if (batch.isEmpty()) {
      return Future.succeededFuture(new TakenBatch<>(batch, PersistOutcome.of(List.of()), null, 0));
    }
    long started = System.nanoTime();
    return persist(batch.stream().map(event).toList(), System.currentTimeMillis() / 1000)
        .transform(ar -> Future.succeededFuture(
            new TakenBatch<>(batch, ar.result(), ar.cause(), System.nanoTime() - started)));
  }

  /**
   * Whether {@link #persistTaken} may be asked for again before the previous one completed: true where
   * the tenant's writes run one after the other on a lane (SQLite), so at most one commit runs and
   * one waits; false where the engine must wait for each commit before the next (MySQL).
   */
  default boolean queuesCommits() {
    return false;
  }

  /**
   * REQ history: per filter newest first up to its limit ({@code maxLimit} caps it, {@code defaultLimit}
   * when absent), {@code seq < seqBelow}, not expired at {@code now}; the union deduplicated. Fails with
   * {@link QueryBudgetExceeded} past {@code budgetMillis} (0: no budget) where the dialect can stop a query.
   */
  Future<List<StoredEvent>> query(List<Filter> filters, long seqBelow, int defaultLimit, int maxLimit, long now,
      long budgetMillis);

  /** NIP-45: distinct stored events matching any filter, limits ignored. */
  Future<Long> count(List<Filter> filters, long seqBelow, long now, long budgetMillis);

  /** NIP-77: the (created_at, id) items matching {@code filter}, at most {@code maxRecords} (else only how many). */
  Future<SyncItems> syncItems(Filter filter, int maxRecords, long now);

  /**
   * Stored events with {@code fromSeq <= seq < toSeq} in seq order, at most {@code max}: a pod's catch-up
   * read when it missed another pod's live events (seqs without a row were deleted or replaced since).
   */
  Future<List<StoredEvent>> range(long fromSeq, long toSeq, int max);

  /** NIP-40: deletes up to {@code maxRows} events expired at {@code now} in one transaction; returns them. */
  Future<List<Removal>> purgeExpired(long nowEpochSeconds, int maxRows);

  /** Outbox rows not yet delivered ({@code cairn_outbox_pending}), without a query. */
  long outboxBacklog();

  /** Background upkeep after a commit that stored or removed events (SQLite: WAL checkpoint, search index). */
  void afterWrite();

  /** Closes the tenant's connections after the writes queued before. */
  Future<Void> close();
}
