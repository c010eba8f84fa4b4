package dev.cairn.store.feed;

import dev.cairn.store.SqliteTenantStore;

/**
 * How the feed reaches a SQLite tenant store: database-engine's cached store, or its acquisition path.
 * {@link SqliteFeedStores} turns it into the dialect-free {@link FeedStores}.
 */
public interface StoreAccess {
  /** The open store, or null when there is none (never opened, or idle-closed). */
  SqliteTenantStore cached(String tenant);

  /**
   * Blocking (flush pool thread): acquires the store again the way the engine opens it, and caches
   * it; null when the tenant no longer exists.
   */
  SqliteTenantStore reacquire(String tenant);
}
