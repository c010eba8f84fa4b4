package dev.cairn.store;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.Future;
import java.util.List;

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
