package dev.cairn.store.feed;

import dev.cairn.store.SqliteTenantStore;

/** How the feed reaches a tenant store: database-engine's cached store, or its acquisition path. */
public interface StoreAccess {
  /** The open store, or null when there is none (never opened, or idle-closed). */
  SqliteTenantStore cached(String tenant);

  /**
   * Blocking (writer or flush thread): acquires the store again the way the engine opens it, and
   * caches it; null when the tenant no longer exists.
   */
  SqliteTenantStore reacquire(String tenant);
}
