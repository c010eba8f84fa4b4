package dev.cairn.config;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The runtime tenants in the meta DB (issue 10), as the admin API ({@code /admin/tenants}) reads and
 * changes them. Implemented by the MySQL registry; every pod picks a change up through its poller.
 */
public interface RuntimeTenantRegistry {
  /** One runtime tenant: its settings as stored (a {@code tenants[]} entry), placement, last change (ms). */
  record Entry(String id, JsonObject config, String placement, long updatedAt) {}

  /** Whether a PUT made a new runtime tenant or replaced one, and the row as it is now. */
  record Put(boolean created, Entry entry) {}

  /** Every runtime tenant that is not removed, by id. */
  Future<List<Entry>> list();

  /** The runtime tenant, or null (none, removed, or a config-file tenant's row). */
  Future<Entry> get(String id);

  /**
   * Creates or replaces the tenant's settings. {@code placement} (null: {@code store.placement}) applies
   * to a tenant the registry does not know; for a known one it must match (fails with {@link
   * IllegalArgumentException}: moving a tenant's data is not built).
   */
  Future<Put> put(String id, JsonObject config, String placement);

  /** Marks the runtime tenant removed; false when there was none. Its data stays where it is. */
  Future<Boolean> remove(String id);
}
