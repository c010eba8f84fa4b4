package dev.cairn.store;

import dev.cairn.store.mysql.MysqlTenant;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * NIP-40 on the engine's own clock: every {@code store.expiry_sweep_interval} each tenant's expired events
 * are deleted (an {@code EventDeleted} outbox row and a feed row each). Its outcome is also how the engine
 * knows a tenant DB answers writes ({@link TenantDbHealth}, {@code /readyz}): a tenant whose DB failed its
 * last write is swept alone every {@link #FAILED_DB_RETRY_MS} until a write lands. On MySQL only tenants
 * written in the last {@link #ACTIVE_WINDOW_MS} are swept (seed 003: no timer over cold tenant DBs; a REQ
 * never returns an expired event anyway, so a cold tenant's expired rows wait for its next write).
 * Engine's context only.
 */
public final class ExpirySweeps {
  /**
   * How often a tenant whose DB failed its last write is tried again (the NIP-40 sweep, for it alone) until
   * one lands: {@code /readyz} says 503 meanwhile, and a pod out of its load balancer gets no write that
   * could clear it, so waiting for the next full sweep kept it out up to a minute after its DB was back.
   */
  public static final long FAILED_DB_RETRY_MS = 2_000;
  /**
   * Free bytes a SQLite tenant's volume needs before a sweep clears its "storage full" error: the sweep's
   * transaction writes nothing when nothing expired, so it commits on a full volume too.
   */
  static final long STORAGE_ROOM_BYTES = 64L << 20;
  /** MySQL: a tenant written this recently is active: its DB is awake, the sweep may touch it. */
  static final long ACTIVE_WINDOW_MS = 10 * 60_000;
  /** Most expired events one sweep of one tenant deletes (one transaction). */
  private static final int MAX_ROWS = 5000;

  private final Vertx vertx;
  /** The engine's open stores (read here, never changed). */
  private final Map<String, TenantStore> stores;
  private final boolean mysql;
  private final TenantDbHealth health;
  private final Purged purged;
  /** Tenant -> when its last commit landed, for tenants active now. */
  private final Map<String, Long> lastWriteMs = new HashMap<>();
  /** Tenants whose failed DB is being tried again now ({@link #retryFailedDbs}). */
  private final Set<String> retrying = new HashSet<>();

  /** What follows a sweep that ran: the feed's rows, and where it deleted events, the outbox and the search index. */
  @FunctionalInterface
  interface Purged {
    void purged(String tenant, TenantStore store, List<Removal> removed);
  }

  ExpirySweeps(Vertx vertx, Map<String, TenantStore> stores, boolean mysql, TenantDbHealth health, Purged purged) {
    this.vertx = vertx;
    this.stores = stores;
    this.mysql = mysql;
    this.health = health;
    this.purged = purged;
  }

  /** Starts both timers: the full sweep every {@code intervalMs}, the failed DBs' every {@link #FAILED_DB_RETRY_MS}. */
  void start(long intervalMs) {
    vertx.setPeriodic(intervalMs, id -> sweepAll());
    vertx.setPeriodic(FAILED_DB_RETRY_MS, id -> retryFailedDbs());
  }

  /** A commit of {@code tenant} landed now. */
  void written(String tenant) {
    lastWriteMs.put(tenant, System.currentTimeMillis());
  }

  /** {@code tenant} is served here no more. */
  void forget(String tenant) {
    lastWriteMs.remove(tenant);
  }

  private void sweepAll() {
    long nowMs = System.currentTimeMillis();
    long now = nowMs / 1000;
    lastWriteMs.values().removeIf(at -> nowMs - at > ACTIVE_WINDOW_MS);
    for (Map.Entry<String, TenantStore> e : stores.entrySet()) {
      if (mysql && !lastWriteMs.containsKey(e.getKey())) {
        continue;
      }
      sweep(e.getKey(), e.getValue(), now);
    }
  }

  /** Tenants whose DB failed its last write, swept alone: the first write that lands clears {@code /readyz}. One try at a time per tenant. */
  private void retryFailedDbs() {
    long now = System.currentTimeMillis() / 1000;
    for (String tenant : health.failing()) {
      TenantStore store = stores.get(tenant);
      if (store == null) {
        health.forget(tenant); // removed meanwhile
      } else if (retrying.add(tenant)) {
        sweep(tenant, store, now).onComplete(ar -> retrying.remove(tenant));
      }
    }
  }

  /** A full SQLite volume's error is cleared once the volume has {@link #STORAGE_ROOM_BYTES} free again. */
  private void clearWhenRoom(String tenant, Path dbFile) {
    vertx.fileSystem().fsProps(dbFile.toString()).onSuccess(props -> {
      if (props.usableSpace() >= STORAGE_ROOM_BYTES) {
        health.roomAgain(tenant, props.usableSpace());
      }
    });
  }

  /** The sweep of one tenant; its outcome sets or clears the tenant's DB error. */
  private Future<List<Removal>> sweep(String tenant, TenantStore store, long now) {
    if (store instanceof MysqlTenant m) {
      m.outbox().refreshBacklog(); // other pods settle this tenant's rows too: recount while it is awake
    }
    return store.purgeExpired(now, MAX_ROWS)
        .onSuccess(removed -> purged.purged(tenant, store, removed))
        .onComplete(ar -> {
          if (ar.failed()) {
            health.sweepFailed(tenant, ar.cause());
          } else if (health.sweepLanded(tenant) && store instanceof SqliteTenant s) {
            clearWhenRoom(tenant, s.sqlite().file());
          }
        });
  }
}
