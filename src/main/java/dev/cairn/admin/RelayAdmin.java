package dev.cairn.admin;

import dev.cairn.store.AdminRow;
import dev.cairn.store.MetaStore;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The NIP-86 state of every tenant: read by anyone without a lock ({@link #of}, an immutable
 * {@link TenantAdmin}), changed one change at a time on a worker thread (the meta DB write is
 * blocking JDBC). A change is durable before it is visible: it is committed to {@code meta.db},
 * then the new snapshot is published, so an admin told "done" never loses it to a crash, and every
 * EVENT judged after that answer sees it.
 *
 * <p>One per server, created by root and shared by the policy node (which enforces the lists) and
 * the listeners (which serve the API and NIP-11); it keeps its own connection to the meta DB.
 */
public final class RelayAdmin implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(RelayAdmin.class.getName());

  private final Path metaDb;
  private MetaStore store;
  private volatile Map<String, TenantAdmin> tenants = Map.of();

  public RelayAdmin(Path metaDb) {
    this.metaDb = metaDb;
  }

  /** Blocking (worker thread): opens the meta DB and loads what admins changed before. */
  public synchronized void open() {
    if (store != null) {
      return;
    }
    store = MetaStore.open(metaDb);
    Map<String, TenantAdmin> loaded = new HashMap<>();
    int rows = 0;
    for (AdminRow r : store.adminRows()) {
      TenantAdmin t = loaded.getOrDefault(r.tenant(), TenantAdmin.EMPTY);
      if (r.list().equals(AdminRow.INFO)) {
        InfoField f = InfoField.of(r.value());
        if (f != null) {
          loaded.put(r.tenant(), t.with(f, r.note()));
          rows++;
        }
      } else {
        AdminList l = AdminList.of(r.list());
        if (l != null) {
          loaded.put(r.tenant(), t.with(l, r.value(), r.note(), true));
          rows++;
        }
      }
    }
    tenants = Map.copyOf(loaded);
    if (rows > 0) {
      LOG.info("NIP-86: loaded " + rows + " admin change(s) for " + loaded.size() + " tenant(s) from " + metaDb);
    }
  }

  /** What admins set for {@code tenant}; never null. Any thread, no lock. */
  public TenantAdmin of(String tenant) {
    return tenants.getOrDefault(tenant, TenantAdmin.EMPTY);
  }

  /** Blocking (worker thread): adds {@code value} to (or, {@code present} false, removes it from) a list. */
  public synchronized void set(String tenant, AdminList list, String value, String reason, boolean present) {
    store().putAdminRow(new AdminRow(tenant, list.dbName(), value, reason), present);
    publish(tenant, of(tenant).with(list, value, reason, present));
  }

  /** Blocking (worker thread): changes a NIP-11 field. */
  public synchronized void set(String tenant, InfoField field, String value) {
    store().putAdminRow(new AdminRow(tenant, AdminRow.INFO, field.dbName(), value), true);
    publish(tenant, of(tenant).with(field, value));
  }

  private void publish(String tenant, TenantAdmin next) {
    Map<String, TenantAdmin> m = new HashMap<>(tenants);
    m.put(tenant, next);
    tenants = Map.copyOf(m);
  }

  private MetaStore store() {
    if (store == null) {
      throw new IllegalStateException("relay admin store is not open (" + metaDb + ")");
    }
    return store;
  }

  @Override
  public synchronized void close() {
    if (store != null) {
      store.close();
      store = null;
    }
  }
}
