package dev.cairn.store.feed;

import io.vertx.core.Future;

/**
 * How the feed engine reaches a tenant's {@link FeedStore}, either dialect (seed 003's store
 * re-resolution): the cached one, or acquired again the way the engine opens it. Event loop only;
 * never blocks.
 */
public interface FeedStores {
  /** The tenant's store while its database is open, else null (never opened, or idle-closed). */
  FeedStore cached(String tenant);

  /**
   * Acquires the tenant's database again (and caches it); completes with null when the tenant no
   * longer exists (its buffered changes are then dropped as {@code tenant_gone}).
   */
  Future<FeedStore> reacquire(String tenant);

  /** Releases what the access itself holds (the SQLite flush pool), after the engine's shutdown flush. */
  default Future<Void> close() {
    return Future.succeededFuture();
  }
}
