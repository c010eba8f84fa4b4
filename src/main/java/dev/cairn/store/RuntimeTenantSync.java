package dev.cairn.store;

import dev.cairn.config.ConfigException;
import dev.cairn.config.TenantConfig;
import dev.cairn.config.TenantDirectory;
import dev.cairn.store.mysql.MysqlRuntimeTenants;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps this pod's {@link TenantDirectory} in step with the registry's runtime tenants (issue 10): one
 * small meta-DB query every {@code store.tenants_poll_interval}, for rows changed since the last high
 * water (minus {@link #LOOKBACK_MS}: a change whose transaction committed after a newer one was read is
 * still seen; rows already seen at the same {@code updated_at} are not parsed again). A new tenant's store
 * is opened before the tenant is published, so routing never sends a request to a store that is not
 * there; a removed tenant is unpublished first and its store dropped after. Runs on database-engine's
 * context only (its timer), so its maps need no locks; the directory is the thread-safe hand-off.
 */
final class RuntimeTenantSync {
  private static final Logger LOG = Logger.getLogger(RuntimeTenantSync.class.getName());
  /** How far below the high water each poll reads again (commit order differs from updated_at order). */
  static final long LOOKBACK_MS = 10_000;

  private final Vertx vertx;
  private final MysqlRuntimeTenants rows;
  private final TenantDirectory directory;
  private final JsonObject relay;
  private final long intervalMs;
  private final Function<String, Future<Void>> open;
  private final Consumer<String> drop;
  /** The runtime tenants served now. */
  private final Map<String, TenantConfig> served = new LinkedHashMap<>();
  /** updated_at of every row already handled (served, removed or refused), by id. */
  private final Map<String, Long> seen = new HashMap<>();
  /** Tenants whose store failed to open: tried again on every poll. */
  private final Map<String, TenantConfig> toRetry = new LinkedHashMap<>();
  private long highWater = -1;
  private long timer = -1;
  private boolean polling;
  private boolean stopped;
  /** The last poll failed: logged once per outage (the meta DB down), not every interval. */
  private boolean failing;

  /**
   * @param open opens a tenant's store (registers, creates and migrates its database)
   * @param drop forgets a removed tenant's store (after it is unpublished)
   */
  RuntimeTenantSync(Vertx vertx, MysqlRuntimeTenants rows, TenantDirectory directory, JsonObject relay,
      long intervalMs, Function<String, Future<Void>> open, Consumer<String> drop) {
    this.vertx = vertx;
    this.rows = rows;
    this.directory = directory;
    this.relay = relay;
    this.intervalMs = intervalMs;
    this.open = open;
    this.drop = drop;
  }

  /** The first read (every runtime tenant opened and published), then the periodic poll. */
  Future<Void> start() {
    return poll().onSuccess(v -> {
      directory.attach(rows);
      if (!stopped) {
        timer = vertx.setPeriodic(intervalMs, id -> {
          if (!polling) {
            poll().onComplete(ar -> failing(ar.failed() ? ar.cause() : null));
          }
        });
      }
    });
  }

  void stop() {
    stopped = true;
    directory.attach(null);
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  private void failing(Throwable cause) {
    if (cause != null && !failing) {
      LOG.log(Level.WARNING, "runtime tenants: the registry poll failed; this pod keeps serving the tenants it"
          + " has and retries every " + intervalMs + " ms: " + cause.getMessage());
    } else if (cause == null && failing) {
      LOG.info("runtime tenants: the registry poll works again");
    }
    failing = cause != null;
  }

  private Future<Void> poll() {
    polling = true;
    long after = highWater < 0 ? -1 : highWater - LOOKBACK_MS;
    return rows.changedSince(after).compose(changes -> {
      boolean changed = false;
      Map<String, TenantConfig> toOpen = new LinkedHashMap<>(toRetry);
      toRetry.clear();
      List<String> removed = new ArrayList<>();
      for (MysqlRuntimeTenants.Change c : changes) {
        highWater = Math.max(highWater, c.updatedAt());
        Long before = seen.put(c.id(), c.updatedAt());
        if (before != null && before == c.updatedAt()) {
          continue;
        }
        if (c.removed()) {
          toOpen.remove(c.id());
          if (served.remove(c.id()) != null) {
            removed.add(c.id());
            changed = true;
          }
          continue;
        }
        TenantConfig t = parse(c);
        if (t == null) {
          continue;
        }
        if (served.containsKey(c.id())) {
          served.put(c.id(), t);
          changed = true;
        } else {
          toOpen.put(c.id(), t);
        }
      }
      boolean publish = changed;
      return opened(toOpen).map(added -> {
        if (publish || added) {
          directory.publish(Map.copyOf(served));
        }
        for (String id : removed) {
          LOG.info("runtime tenant " + id + " removed from the registry: no longer served by this pod");
          drop.accept(id);
        }
        return (Void) null;
      });
    }).onComplete(x -> polling = false);
  }

  /** Opens each new tenant's store; true when any was added to {@link #served}. Failures wait for the next poll. */
  private Future<Boolean> opened(Map<String, TenantConfig> toOpen) {
    if (toOpen.isEmpty()) {
      return Future.succeededFuture(false);
    }
    List<Future<?>> all = new ArrayList<>();
    boolean[] added = {false};
    toOpen.forEach((id, t) -> all.add(open.apply(id)
        .onSuccess(v -> {
          served.put(id, t);
          added[0] = true;
          LOG.info("runtime tenant " + id + " served by this pod");
        })
        .onFailure(e -> {
          toRetry.put(id, t);
          LOG.log(Level.WARNING, "runtime tenant " + id + ": its store did not open (retried): " + e.getMessage());
        })));
    return Future.join(all).transform(x -> Future.succeededFuture(added[0]));
  }

  /** The row's settings, or null (logged) when this pod cannot use them. */
  private TenantConfig parse(MysqlRuntimeTenants.Change c) {
    if (directory.inConfigFile(c.id())) {
      LOG.fine(() -> "runtime tenant " + c.id() + " ignored: this pod's config file defines it");
      return null;
    }
    try {
      return TenantConfig.runtime(c.id(), new JsonObject(c.config()), relay);
    } catch (ConfigException | DecodeException e) {
      LOG.warning("runtime tenant " + c.id() + ": its registry settings are refused here, not served: " + e.getMessage());
      return null;
    }
  }
}
