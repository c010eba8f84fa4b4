package dev.cairn.store;

import dev.cairn.config.RepeatedFailureLog;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Which tenant DBs failed their last write (a group commit or the NIP-40 sweep) and why: what
 * {@code /readyz} reports, without a query of its own against the DBs. A tenant's error stays until a
 * write of it lands; one whose SQLite volume was full stays until the volume has room again too, since a
 * sweep that removed nothing commits on a full volume. Each failure is logged at most once per
 * {@link #LOG_INTERVAL_MS} per tenant and kind, with a count of the ones in between.
 *
 * <p>The engine's context only, except {@link #problem}, which any thread may call.
 */
final class TenantDbHealth {
  /** Under the engine's name: where operators have always found these lines. */
  private static final Logger LOG = Logger.getLogger(DatabaseEngine.class.getName());
  private static final long LOG_INTERVAL_MS = 10_000;

  private final Map<String, String> errors = new ConcurrentHashMap<>();
  /** SQLite tenants whose last failure was a full volume. */
  private final Set<String> storageFull = new HashSet<>();
  private final Map<String, RepeatedFailureLog> commitFailures = new HashMap<>();
  private final Map<String, RepeatedFailureLog> sweepFailures = new HashMap<>();

  /** A group commit of {@code events} events failed as a whole. */
  void commitFailed(String tenant, int events, Throwable failure, boolean sqlite) {
    commitLog(tenant).failed(events + " event(s) refused", failure, System.currentTimeMillis());
    errors.put(tenant, StoreException.reason(failure));
    if (failure instanceof StorageFullException && sqlite) {
      storageFull.add(tenant);
    }
  }

  /** A group commit landed: the tenant's DB takes writes. */
  void commitLanded(String tenant) {
    commitLog(tenant).succeeded(System.currentTimeMillis());
    errors.remove(tenant);
    storageFull.remove(tenant);
  }

  /**
   * The sweep's transaction landed. True when the tenant's volume was full: its error then stays until
   * {@link #roomAgain} (the caller looks at the volume).
   */
  boolean sweepLanded(String tenant) {
    sweepLog(tenant).succeeded(System.currentTimeMillis());
    if (storageFull.contains(tenant)) {
      return true;
    }
    errors.remove(tenant);
    return false;
  }

  void sweepFailed(String tenant, Throwable failure) {
    errors.put(tenant, StoreException.reason(failure));
    sweepLog(tenant).failed("its DB did not take the write", failure, System.currentTimeMillis());
  }

  /** A full volume has room again: the tenant is ready for writes. */
  void roomAgain(String tenant, long usableBytes) {
    if (storageFull.remove(tenant)) {
      errors.remove(tenant);
      LOG.warning("tenant " + tenant + ": its volume has room again (" + (usableBytes >> 20)
          + " MiB free); ready for writes");
    }
  }

  /** The tenants whose DB failed its last write, to be tried again. */
  Set<String> failing() {
    return Set.copyOf(errors.keySet());
  }

  /** A tenant no longer served here: nothing of it is reported or logged any more. */
  void forget(String tenant) {
    errors.remove(tenant);
    storageFull.remove(tenant);
    commitFailures.remove(tenant);
    sweepFailures.remove(tenant);
  }

  /** Null while every tenant DB took its last write, else one that did not and why. Any thread. */
  String problem() {
    var it = errors.entrySet().iterator();
    if (!it.hasNext()) {
      return null;
    }
    Map.Entry<String, String> first = it.next();
    return "tenant " + first.getKey() + " DB failed its last write: " + first.getValue();
  }

  private RepeatedFailureLog commitLog(String tenant) {
    return commitFailures.computeIfAbsent(tenant,
        t -> new RepeatedFailureLog(LOG, Level.SEVERE, "group commit for tenant " + t, LOG_INTERVAL_MS));
  }

  private RepeatedFailureLog sweepLog(String tenant) {
    return sweepFailures.computeIfAbsent(tenant,
        t -> new RepeatedFailureLog(LOG, Level.WARNING, "expiry sweep for tenant " + t, LOG_INTERVAL_MS));
  }
}
