package dev.cairn.config;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The tenants this process serves now: its config file's plus, with {@code store.dialect = mysql}, the
 * registry's runtime tenants (issue 10), which database-engine re-reads from the meta DB and publishes
 * here. Readers on any thread (listeners, network-manager, policy) see one immutable {@link Snapshot}
 * through a volatile reference: no locks on the event loops. A config-file tenant wins over a runtime
 * tenant of the same id (the operator's file is the stronger statement; the API refuses such ids).
 */
public final class TenantDirectory {
  private static final Logger LOG = Logger.getLogger(TenantDirectory.class.getName());

  /** One published state: tenants by id (config file first) and by host name (lower case). */
  public record Snapshot(Map<String, TenantConfig> byId, Map<String, TenantConfig> byHost) {}

  private final Map<String, TenantConfig> fromFile;
  /** The registry's runtime tenants as last published (written under this object's lock). */
  private Map<String, TenantConfig> runtime = Map.of();
  /**
   * The start-up warm-up's throwaway tenant while its traffic runs (decision 0011), else null: routed by
   * {@code /t/<id>} only, before any listener is open, and gone before the first client comes.
   */
  private TenantConfig warmup;
  private volatile Snapshot current;
  /** The registry's write side for the admin API; null on SQLite and while database-engine (re)starts. */
  private volatile RuntimeTenantRegistry registry;

  public TenantDirectory(Map<String, TenantConfig> fromFile) {
    this.fromFile = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fromFile));
    this.current = snapshot();
  }

  public TenantConfig get(String id) {
    return id == null ? null : current.byId().get(id);
  }

  /** The tenant whose {@code hosts} names {@code host} (lower case, no port), or null. */
  public TenantConfig byHost(String host) {
    return current.byHost().get(host);
  }

  /** Every tenant served now (an immutable map, config-file tenants first). */
  public Map<String, TenantConfig> all() {
    return current.byId();
  }

  /** True when {@code id} comes from this process's config file (the runtime API leaves it alone). */
  public boolean inConfigFile(String id) {
    return fromFile.containsKey(id);
  }

  /** Replaces the runtime tenants with {@code runtime} (database-engine's registry poller, any thread). */
  public synchronized void publish(Map<String, TenantConfig> runtime) {
    this.runtime = Map.copyOf(runtime);
    current = snapshot();
  }

  /** Serves the start-up warm-up's tenant {@code t} from now on (an id no other tenant has). */
  public synchronized void beginWarmup(TenantConfig t) {
    if (current.byId().containsKey(t.id())) {
      throw new IllegalArgumentException("tenant " + t.id() + " exists: not a warm-up tenant");
    }
    warmup = t;
    current = snapshot();
  }

  /** The warm-up's tenant is unknown (404) from now on. */
  public synchronized void endWarmup() {
    warmup = null;
    current = snapshot();
  }

  public RuntimeTenantRegistry registry() {
    return registry;
  }

  /** database-engine attaches its meta DB's registry once started (null when it stops). */
  public void attach(RuntimeTenantRegistry r) {
    registry = r;
  }

  private Snapshot snapshot() {
    Map<String, TenantConfig> byId = new LinkedHashMap<>(fromFile);
    if (warmup != null) {
      byId.put(warmup.id(), warmup);
    }
    runtime.forEach((id, t) -> {
      if (byId.putIfAbsent(id, t) != null) {
        LOG.fine(() -> "runtime tenant " + id + " ignored here: this pod's config file defines it");
      }
    });
    Map<String, TenantConfig> byHost = new HashMap<>();
    for (TenantConfig t : byId.values()) {
      for (String h : t.hosts()) {
        byHost.putIfAbsent(h.toLowerCase(Locale.ROOT), t);
      }
    }
    return new Snapshot(java.util.Collections.unmodifiableMap(byId), Map.copyOf(byHost));
  }
}
