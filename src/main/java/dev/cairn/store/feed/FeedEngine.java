package dev.cairn.store.feed;

import dev.cairn.delivery.DeliveryInbox;
import dev.cairn.delivery.FeedInbox;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.FeedCommand;
import dev.cairn.store.PersistOutcome;
import dev.cairn.store.PersistResult;
import dev.cairn.store.Removal;
import dev.cairn.store.StoreException;
import dev.cairn.store.TenantWriters;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Channels;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * database-engine's change-feed part (seed 003). Runs on the engine's event loop; the table work goes
 * through each tenant's {@link FeedStore} (SQLite: fresh inserts on the tenant's writer lane, retry-buffer
 * flushes on a flush pool of {@code flushers} threads so one tenant's hung DB cannot hold up the others,
 * page reads on the reader pool; MySQL: reactive). A failed insert never reaches the Nostr write: its
 * changes go to the {@link RetryBuffer}. Every landed insert or flush wakes delivery ({@code FeedWake}:
 * the second wake for a flush) and may start the lazy {@link RetentionSweep}.
 */
public final class FeedEngine {
  private static final Logger LOG = Logger.getLogger(FeedEngine.class.getName());

  /** The tenant no longer exists: its buffered changes are dropped as {@code tenant_gone}. */
  private static final class TenantGone extends RuntimeException {
    TenantGone(String tenant) {
      super("tenant gone: " + tenant, null, false, false);
    }
  }

  private final Vertx vertx;
  private final FeedStores stores;
  /** Several pods: tells the others that {@code tenant}'s feed grew (the signal plane); one pod: nothing. */
  private java.util.function.Consumer<String> otherPods = tenant -> { };
  private final FeedSettings settings;
  private final FeedMetrics metrics;
  private final BoundedChannel<DeliveryInbox> toDelivery;
  private final RetryBuffer buffer;
  private final RetentionSweep sweep;
  private final Map<String, String> epochs = new ConcurrentHashMap<>();
  private final Function<String, Future<String>> epochLookup;
  private long timerId = -1;
  private long timerAt = Long.MAX_VALUE;
  private Promise<Void> shutdown;

  /**
   * The SQLite wiring (database-engine today): stores through {@link SqliteFeedStores}, the blocking
   * epoch lookup on the reader pool.
   */
  public FeedEngine(Vertx vertx, Channels channels, TenantWriters writers, WorkerExecutor readers, StoreAccess stores,
      Function<String, String> epochLookup, FeedSettings settings, FeedMetrics metrics, String deploymentId) {
    this(vertx, channels, new SqliteFeedStores(vertx, stores, writers, readers, settings, deploymentId),
        tenant -> readers.executeBlocking(() -> epochLookup.apply(tenant), false), settings, metrics);
  }

  /**
   * Either dialect: {@code stores} reaches each tenant's {@link FeedStore}; {@code epochLookup} answers
   * a tenant's feed epoch without blocking (looked up once per tenant, then cached).
   */
  public FeedEngine(Vertx vertx, Channels channels, FeedStores stores, Function<String, Future<String>> epochLookup,
      FeedSettings settings, FeedMetrics metrics) {
    this.vertx = vertx;
    this.stores = stores;
    this.epochLookup = epochLookup;
    this.settings = settings;
    this.metrics = metrics;
    this.toDelivery = channels.open("database-engine->delivery.feed", Addresses.DELIVERY);
    this.buffer = new RetryBuffer(settings.globalCap(), settings.tenantCap(), settings.flushers(),
        settings.retryMaxAge().toMillis(), (tenant, reason, n) -> metrics.drop(tenant, reason, n));
    this.sweep = new RetentionSweep(settings, System::currentTimeMillis);
    LOG.info("feed retention " + settings.retention() + " (feed.retention / CAIRN_FEED_RETENTION); retry max age "
        + settings.retryMaxAge() + ", buffer caps " + settings.globalCap() + " global / " + settings.tenantCap()
        + " per tenant");
  }

  /** For tests and the status of shutdown: entries the retry buffer holds. */
  public int bufferDepth() {
    return buffer.depth();
  }

  // ------------------------------------------------------------------------------------- writes

  /**
   * After a group commit and its PersistAck: its feed rows landed with it (wake delivery), or their
   * insert failed alone and the changes go to the retry buffer, never failing the write.
   */
  /**
   * Several pods (seed 003 section 3): every landed insert and every retry-buffer flush also runs
   * {@code notify} (the signal plane's hint), so SSE sessions on the other pods wake too.
   */
  public FeedEngine notifyingOtherPods(java.util.function.Consumer<String> notify) {
    this.otherPods = notify;
    return this;
  }

  public void afterCommit(String tenant, PersistOutcome outcome) {
    if (outcome.feedError() != null) {
      metrics.insert("error", outcome.feed().size());
      LOG.log(Level.WARNING, "feed insert failed for tenant " + tenant + " (" + outcome.feed().size()
          + " changes buffered): " + outcome.feedError());
      buffer.enqueue(tenant, outcome.feed(), System.currentTimeMillis());
      pump();
    } else if (outcome.feedBounds() != null) {
      metrics.insert("ok", outcome.feedBounds().inserted());
      landed(tenant, outcome.feedBounds());
    }
  }

  /** After the NIP-40 purge: one {@code deleted} row (reason expired) per removed event. */
  public void afterPurge(String tenant, List<Removal> removed) {
    long ts = System.currentTimeMillis();
    insert(tenant, removed.stream().map(r -> FeedChange.deleted(ts, r)).toList());
  }

  private void insert(String tenant, List<FeedChange> changes) {
    if (changes.isEmpty()) {
      return;
    }
    write(tenant, changes, false).onComplete(ar -> {
      if (ar.succeeded()) {
        metrics.insert("ok", changes.size());
        landed(tenant, ar.result());
        return;
      }
      metrics.insert("error", changes.size());
      if (ar.cause() instanceof TenantGone) {
        metrics.drop(tenant, RetryBuffer.TENANT_GONE, changes.size());
        return;
      }
      LOG.log(Level.WARNING, "feed insert failed for tenant " + tenant + " (" + changes.size()
          + " changes buffered): " + ar.cause());
      buffer.enqueue(tenant, changes, System.currentTimeMillis());
      pump();
    });
  }

  /**
   * The insert (a fresh one, or a retry-buffer {@code flush}) into the cached store, else the store
   * acquired again; when it failed because the store was closed meanwhile, once more into a store
   * acquired again. Fails with {@link TenantGone} when the tenant no longer exists.
   */
  private Future<FeedBounds> write(String tenant, List<FeedChange> changes, boolean flush) {
    FeedStore cached = stores.cached(tenant);
    Future<FeedStore> first = cached != null ? Future.succeededFuture(cached) : reacquire(tenant);
    return first.compose(store -> writeInto(store, changes, flush).recover(e -> {
      if (!store.isClosed()) {
        return Future.failedFuture(e);
      }
      return reacquire(tenant).compose(again -> writeInto(again, changes, flush));
    }));
  }

  private static Future<FeedBounds> writeInto(FeedStore store, List<FeedChange> changes, boolean flush) {
    return flush ? store.flush(changes) : store.insert(changes);
  }

  private Future<FeedStore> reacquire(String tenant) {
    return stores.reacquire(tenant).compose(s -> s == null ? Future.failedFuture(new TenantGone(tenant))
        : Future.succeededFuture(s));
  }

  /** Rows landed (fresh insert or flush): rows estimate, wake delivery, maybe the lazy sweep. */
  private void landed(String tenant, FeedBounds bounds) {
    metrics.rows(tenant).set(bounds.rowsEstimate());
    toDelivery.sendOwed(new DeliveryInbox.FeedWake(tenant, bounds.high()));
    otherPods.accept(tenant);
    FeedStore store = stores.cached(tenant);
    if (store != null && shutdown == null) {
      Future<SweepResult> f = sweep.maybeSweep(tenant, store);
      if (f != null) {
        f.onSuccess(r -> {
          metrics.swept(r.scope(), r.deleted());
          metrics.rows(tenant).set(r.bounds().rowsEstimate());
          if (r.deleted() > 0) {
            LOG.info("feed retention sweep for " + r.scope() + " (from tenant " + tenant + "): " + r.deleted()
                + " rows in " + r.batches() + " batches");
          }
        });
      }
    }
  }

  // ------------------------------------------------------------------------------- retry buffer

  private void pump() {
    long now = System.currentTimeMillis();
    for (RetryBuffer.Flush f : buffer.takeDue(now)) {
      flush(f);
    }
    metrics.bufferDepth(buffer.depth());
    if (shutdown != null && buffer.depth() == 0) {
      shutdown.tryComplete();
    }
    long next = buffer.nextDueAt();
    if (next == Long.MAX_VALUE || (timerId >= 0 && timerAt <= next)) {
      return;
    }
    if (timerId >= 0) {
      vertx.cancelTimer(timerId);
    }
    timerAt = next;
    timerId = vertx.setTimer(Math.max(1, next - now), id -> {
      timerId = -1;
      timerAt = Long.MAX_VALUE;
      pump();
    });
  }

  private void flush(RetryBuffer.Flush f) {
    write(f.tenant(), f.changes(), true).onComplete(ar -> {
      long now = System.currentTimeMillis();
      if (ar.succeeded()) {
        metrics.flush("ok");
        for (RetryBuffer.Entry e : f.entries()) {
          metrics.residencySeconds((now - e.enqueuedAt()) / 1000.0);
        }
        buffer.succeeded(f);
        landed(f.tenant(), ar.result()); // the second wake
      } else if (ar.cause() instanceof TenantGone) {
        buffer.dropTenant(f.tenant(), RetryBuffer.TENANT_GONE);
      } else {
        metrics.flush("error");
        buffer.failed(f, now);
      }
      pump();
    });
  }

  // -------------------------------------------------------------------------------------- reads

  /** A feed read for an SSE session; {@code release} gives the inbox credit back when answered. */
  public void handle(FeedCommand cmd, Runnable release) {
    String tenant = cmd instanceof FeedCommand.Open o ? o.tenant() : ((FeedCommand.Page) cmd).tenant();
    metrics.pageQuery(tenant);
    FeedStore store = stores.cached(tenant);
    if (cmd instanceof FeedCommand.Open o) {
      Future<FeedInbox.FeedOpened> opened = store == null ? noStore(tenant)
          : epoch(tenant).compose(epoch -> store.bounds().map(b -> new FeedInbox.FeedOpened(o.sessionId(), epoch, b, null)));
      opened.onComplete(ar -> {
        release.run();
        toDelivery.sendOwed(ar.succeeded() ? ar.result()
            : new FeedInbox.FeedOpened(o.sessionId(), null, null, "error: " + ar.cause().getMessage()));
      });
    } else if (cmd instanceof FeedCommand.Page p) {
      Future<FeedPage> page = store == null ? noStore(tenant) : store.page(p.after(), p.limit(), p.kinds(), p.authors());
      page.onComplete(ar -> {
        release.run();
        if (ar.failed()) {
          LOG.log(Level.FINE, "feed page failed for tenant " + tenant, ar.cause());
        }
        toDelivery.sendOwed(ar.succeeded() ? new FeedInbox.FeedPageRead(p.sessionId(), ar.result(), null)
            : new FeedInbox.FeedPageRead(p.sessionId(), null, "error: " + ar.cause().getMessage()));
      });
    }
  }

  private static <T> Future<T> noStore(String tenant) {
    return Future.failedFuture(new StoreException("no store for tenant " + tenant));
  }

  /** The tenant's feed epoch: looked up once (off the event loop), then from the map. */
  private Future<String> epoch(String tenant) {
    String known = epochs.get(tenant);
    if (known != null) {
      return Future.succeededFuture(known);
    }
    return CallerContext.deliver(epochLookup.apply(tenant)).onSuccess(e -> {
      if (e != null) {
        epochs.put(tenant, e);
      }
    });
  }

  // ----------------------------------------------------------------------------------- shutdown

  /**
   * Stops accepting into the buffer ({@code stopped}), flushes what it holds within
   * {@code shutdown.flush_budget} ignoring backoff, and drops what is left as {@code shutdown}.
   */
  public Future<Void> shutdown() {
    if (shutdown != null) {
      return shutdown.future();
    }
    shutdown = Promise.promise();
    buffer.stop();
    if (buffer.depth() == 0) {
      shutdown.complete();
    } else {
      LOG.info("flushing " + buffer.depth() + " buffered feed changes within " + settings.flushBudget());
      buffer.expedite(System.currentTimeMillis());
      pump();
      vertx.setTimer(Math.max(1, settings.flushBudget().toMillis()), id -> {
        if (buffer.depth() > 0) {
          LOG.warning("shutdown flush budget spent: dropping " + buffer.depth() + " buffered feed changes");
          buffer.dropAll(RetryBuffer.SHUTDOWN);
          metrics.bufferDepth(0);
        }
        shutdown.tryComplete();
      });
    }
    if (timerId >= 0 && buffer.depth() == 0) {
      vertx.cancelTimer(timerId);
      timerId = -1;
    }
    return shutdown.future().eventually(stores::close);
  }
}
