package dev.cairn.store.feed;

import io.vertx.core.Future;
import java.util.List;
import java.util.Set;

/**
 * The change feed's table work on ONE tenant's database (seed 003), for either dialect: SQLite
 * ({@link SqliteFeedStore}: JDBC on the engine's worker threads) or MySQL ({@code MysqlFeedStore}:
 * reactive). Never blocks the caller; every future completes on the caller's Vert.x context (the
 * engine's event loop). Failures are {@code StoreException}s or timeouts ({@code feed.insert_timeout}
 * bounds inserts and sweep batches), never a failed Nostr write: the caller buffers and retries.
 */
public interface FeedStore {
  /**
   * Inserts {@code changes} in order in one transaction of their own, after a commit that did not
   * carry them (the NIP-40 purge); feed seqs are taken at this insert, in commit order.
   *
   * @return the bounds after the insert
   */
  Future<FeedBounds> insert(List<FeedChange> changes);

  /**
   * The same insert for a retry-buffer flush. Separate from {@link #insert} only for SQLite's thread
   * discipline: a flush runs on the flush pool, so a tenant DB that hangs for the whole insert timeout
   * holds one flush thread, not a writer thread other tenants' commits need.
   */
  Future<FeedBounds> flush(List<FeedChange> changes);

  /** Oldest retained and highest assigned seq (an SSE session's open). */
  Future<FeedBounds> bounds();

  /**
   * Rows with {@code seq > after}, oldest first, at most {@code limit}, narrowed by {@code kinds} and
   * {@code authors} (64-hex pubkeys; empty: no narrowing); rows and scanned-to seq from one snapshot.
   */
  Future<FeedPage> page(long after, int limit, Set<Integer> kinds, Set<String> authors);

  /**
   * One lazy retention sweep: deletes rows with {@code ts < cutoffMs} (and the kept JSON of events
   * that left the store before it) in batches of {@code batch} rows, at most {@code maxBatches}
   * batches, each its own short transaction; leftovers wait for the next sweep. Which rows a sweep
   * covers is the store's placement: this tenant's (SQLite, dedicated MySQL database), or the whole
   * shared pool's when this pod wins the pool's claim (else nothing is deleted: batches 0).
   */
  Future<SweepResult> sweep(long cutoffMs, int batch, int maxBatches);

  /** True once the database behind it was closed (idle close): the engine re-resolves the store. */
  boolean isClosed();
}
