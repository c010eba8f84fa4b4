package dev.cairn.store.mysql;

import dev.cairn.store.feed.FeedStore;
import dev.cairn.store.feed.FeedStores;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The MySQL dialect as one pod's database-engine uses it: the store (meta DB, registry, databases), and
 * for each tenant opened its {@link MysqlTenant}, its change-feed tables ({@link MysqlFeedStore}, with the
 * pod's shared-pool sweep claims) and its feed epoch. Opened on the engine's context; the maps are read
 * from any thread.
 */
public final class MysqlTenants {
  private final MysqlStore store;
  private final SharedSweepClaims sweepClaims;
  private final Duration feedInsertTimeout;
  private final Map<String, MysqlFeedStore> feeds = new ConcurrentHashMap<>();
  private final Map<String, String> epochs = new ConcurrentHashMap<>();

  private MysqlTenants(MysqlStore store, String podId, Duration feedInsertTimeout) {
    this.store = store;
    this.sweepClaims = new SharedSweepClaims(store.meta(), podId);
    this.feedInsertTimeout = feedInsertTimeout;
  }

  /** Connects to {@code url}'s meta DB and migrates it. */
  public static Future<MysqlTenants> start(Vertx vertx, String url, int poolSize, String defaultPlacement,
      String podId, Duration feedInsertTimeout) {
    MysqlUrl parsed;
    try {
      parsed = MysqlUrl.parse(url);
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(e);
    }
    return MysqlStore.start(vertx, parsed, poolSize, defaultPlacement)
        .map(s -> new MysqlTenants(s, podId, feedInsertTimeout));
  }

  public MysqlStore store() {
    return store;
  }

  public Pool meta() {
    return store.meta();
  }

  /** The tenant where the registry places it (registered if new), with its feed tables and epoch. */
  public Future<MysqlTenant> open(String tenant) {
    return store.open(tenant).onSuccess(t -> {
      MysqlPlacement p = t.placement();
      feeds.put(tenant, new MysqlFeedStore(t.pool(), tenant, p.shared()
          ? MysqlFeedPlacement.shared(p.dbName(), sweepClaims)
          : MysqlFeedPlacement.dedicated(p.dbName()), feedInsertTimeout));
      epochs.put(tenant, p.feedEpoch());
    });
  }

  /** A tenant this pod no longer serves: its feed tables and epoch are forgotten (its data stays). */
  public void forget(String tenant) {
    feeds.remove(tenant);
    epochs.remove(tenant);
  }

  public String epoch(String tenant) {
    return epochs.get(tenant);
  }

  /** The feed engine's way to each tenant's tables (opened with the tenant; null: not a tenant here). */
  public FeedStores feeds() {
    return new FeedStores() {
      @Override
      public FeedStore cached(String tenant) {
        return feeds.get(tenant);
      }

      @Override
      public Future<FeedStore> reacquire(String tenant) {
        return Future.succeededFuture(feeds.get(tenant));
      }
    };
  }

  public Future<Void> close() {
    return store.close();
  }
}
