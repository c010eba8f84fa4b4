package dev.cairn.store.outbox;

import dev.cairn.store.SqliteTenantStore;
import dev.cairn.store.TenantWriters;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * tenant -> its {@link SqliteOutboxStore}, over the engine's open SQLite stores (null when the tenant
 * has none). One outbox store per open tenant store, kept so that calls arriving together share a
 * transaction; a store that was closed and reopened gets a fresh one.
 */
public final class SqliteOutboxStores implements Function<String, OutboxStore> {
  private final Function<String, SqliteTenantStore> stores;
  private final TenantWriters writers;
  private final Map<String, SqliteOutboxStore> outboxes = new ConcurrentHashMap<>();

  public SqliteOutboxStores(Function<String, SqliteTenantStore> stores, TenantWriters writers) {
    this.stores = stores;
    this.writers = writers;
  }

  @Override
  public OutboxStore apply(String tenant) {
    SqliteTenantStore store = stores.apply(tenant);
    if (store == null) {
      outboxes.remove(tenant);
      return null;
    }
    return outboxes.compute(tenant, (t, known) -> known != null && known.tenantStore() == store
        ? known : new SqliteOutboxStore(t, store, writers));
  }
}
