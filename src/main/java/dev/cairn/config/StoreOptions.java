package dev.cairn.config;

import io.vertx.core.json.JsonObject;
import java.time.Duration;

/**
 * The {@code store} keys database-engine runs its stores by, beyond where they are and how many threads
 * serve them: the SQLite extras (cairn-wal VFS, background thread priority) and its two timers.
 */
public record StoreOptions(
    /** {@code store.wal_vfs} {@code auto}: commits write their WAL through the cairn-wal VFS where it loads. */
    boolean walVfs,
    /** {@code store.thread_priority} {@code auto}: the checkpoint and search index threads at background priority. */
    boolean threadPriority,
    /** {@code store.expiry_sweep_interval}: how often the NIP-40 purge runs. */
    Duration expirySweepInterval,
    /** {@code store.tenants_poll_interval}: how often the registry's runtime tenants are read (MySQL). */
    Duration tenantsPollInterval) {

  static StoreOptions from(JsonObject store) {
    Duration sweep = Durations.parse("store.expiry_sweep_interval", store.getString("expiry_sweep_interval", "60s"));
    if (sweep.isZero() || sweep.isNegative()) {
      throw new ConfigException("store.expiry_sweep_interval: more than 0s");
    }
    Duration poll = Durations.parse("store.tenants_poll_interval", store.getString("tenants_poll_interval", "2s"));
    if (poll.toMillis() < 100) {
      throw new ConfigException("store.tenants_poll_interval: at least 100ms");
    }
    return new StoreOptions(autoOrOff(store, "wal_vfs"), autoOrOff(store, "thread_priority"), sweep, poll);
  }

  private static boolean autoOrOff(JsonObject store, String key) {
    String value = store.getString(key, "auto");
    if (!"auto".equals(value) && !"off".equals(value)) {
      throw new ConfigException("store." + key + ": auto or off, got " + value);
    }
    return "auto".equals(value);
  }
}
