package dev.cairn.store.feed;

import dev.cairn.delivery.DeliveryInbox;
import dev.cairn.delivery.FeedInbox;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.FeedCommand;
import dev.cairn.store.PersistOutcome;
import dev.cairn.store.PersistResult;
import dev.cairn.store.Removal;
import dev.cairn.store.StoreException;
import dev.cairn.store.SqliteTenantStore;
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
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * database-engine's change-feed part (seed 003). Runs on the engine's event loop; SQL runs on the
 * engine's executors: fresh inserts on the tenant's writer lane (after the Nostr write's commit and its
 * PersistAck, in their own transaction with a bounded timeout), retry-buffer flushes on a flush pool
 * of {@code flushers} threads (one tenant's hung DB cannot hold up the others), page reads on the
 * reader pool. A failed insert never reaches the Nostr write: its changes go to the
 * {@link RetryBuffer}. Every landed insert or flush wakes delivery ({@code FeedWake}: the second
 * wake for a flush) and may start the lazy {@link RetentionSweep}.
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
  private final TenantWriters writers;
  private final WorkerExecutor readers;
  private final WorkerExecutor flushPool;
  private final StoreAccess stores;
  private final FeedSettings settings;
  private final FeedMetrics metrics;
  private final BoundedChannel<DeliveryInbox> toDelivery;
  private final RetryBuffer buffer;
  private final RetentionSweep sweep;
  private final Map<String, String> epochs = new ConcurrentHashMap<>();
  private final java.util.function.Function<String, String> epochLookup;
  private long timerId = -1;
  private long timerAt = Long.MAX_VALUE;
  private Promise<Void> shutdown;

  public FeedEngine(Vertx vertx, Channels channels, TenantWriters writers, WorkerExecutor readers, StoreAccess stores,
      java.util.function.Function<String, String> epochLookup, FeedSettings settings, FeedMetrics metrics,
      String deploymentId) {
    this.vertx = vertx;
    this.writers = writers;
    this.readers = readers;
    this.stores = stores;
    this.epochLookup = epochLookup;
    this.settings = settings;
    this.metrics = metrics;
    this.flushPool = vertx.createSharedWorkerExecutor("cairn-feed-flush-" + deploymentId, settings.flushers(),
        settings.insertTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
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
    writers.execute(tenant, () -> insertNow(tenant, changes)).onComplete(ar -> {
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

  /** Blocking: the insert, re-resolving the store once when it was closed. */
  private FeedBounds insertNow(String tenant, List<FeedChange> changes) {
    SqliteTenantStore store = stores.cached(tenant);
    if (store == null || store.isClosed()) {
      store = reacquire(tenant);
    }
    try {
      return insertInto(store, changes);
    } catch (StoreException e) {
      if (!store.isClosed()) {
        throw e;
      }
      return insertInto(reacquire(tenant), changes);
    }
  }

  private SqliteTenantStore reacquire(String tenant) {
    SqliteTenantStore s = stores.reacquire(tenant);
    if (s == null) {
      throw new TenantGone(tenant);
    }
    return s;
  }

  private FeedBounds insertInto(SqliteTenantStore store, List<FeedChange> changes) {
    return store.withWriter(settings.insertTimeout().toMillis(), c -> {
      FeedTable.insert(c, changes, settings.insertTimeoutSeconds());
      return FeedTable.bounds(c);
    });
  }

  /** Rows landed (fresh insert or flush): rows estimate, wake delivery, maybe the lazy sweep. */
  private void landed(String tenant, FeedBounds bounds) {
    metrics.rows(tenant).set(bounds.rowsEstimate());
    toDelivery.sendOwed(new DeliveryInbox.FeedWake(tenant, bounds.high()));
    SqliteTenantStore store = stores.cached(tenant);
    if (store != null && shutdown == null) {
      Future<RetentionSweep.Result> f = sweep.maybeSweep(tenant, store, writers);
      if (f != null) {
        f.onSuccess(r -> {
          metrics.swept(tenant, r.deleted());
          metrics.rows(tenant).set(r.bounds().rowsEstimate());
          if (r.deleted() > 0) {
            LOG.info("feed retention sweep for tenant " + tenant + ": " + r.deleted() + " rows in " + r.batches()
                + " batches");
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
    flushPool.executeBlocking(() -> insertNow(f.tenant(), f.changes()), false).onComplete(ar -> {
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
    SqliteTenantStore store = stores.cached(tenant);
    if (cmd instanceof FeedCommand.Open o) {
      readers.executeBlocking(() -> {
        if (store == null) {
          throw new StoreException("no store for tenant " + tenant);
        }
        String epoch = epochs.computeIfAbsent(tenant, epochLookup);
        return new FeedInbox.FeedOpened(o.sessionId(), epoch, store.withReaderConnection(FeedTable::bounds), null);
      }, false).onComplete(ar -> {
        release.run();
        toDelivery.sendOwed(ar.succeeded() ? ar.result()
            : new FeedInbox.FeedOpened(o.sessionId(), null, null, "error: " + ar.cause().getMessage()));
      });
    } else if (cmd instanceof FeedCommand.Page p) {
      readers.executeBlocking(() -> {
        if (store == null) {
          throw new StoreException("no store for tenant " + tenant);
        }
        return store.withReaderConnection(c -> FeedTable.page(c, p.after(), p.limit(), p.kinds(), p.authors()));
      }, false).onComplete(ar -> {
        release.run();
        if (ar.failed()) {
          LOG.log(Level.FINE, "feed page failed for tenant " + tenant, ar.cause());
        }
        toDelivery.sendOwed(ar.succeeded() ? new FeedInbox.FeedPageRead(p.sessionId(), ar.result(), null)
            : new FeedInbox.FeedPageRead(p.sessionId(), null, "error: " + ar.cause().getMessage()));
      });
    }
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
    return shutdown.future().eventually(flushPool::close);
  }
}
