package dev.cairn.store.outbox;

import dev.cairn.delivery.DeliveryInbox;
import dev.cairn.delivery.OutboxReply;
import dev.cairn.store.OutboxCommand;
import dev.cairn.store.TenantStore;
import dev.cairn.tree.BoundedChannel;
import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * database-engine's side of the outbox: runs {@link OutboxCommand}s as JDBC on the engine's executors
 * (writes on the single writer thread, never on the event loop) and answers into delivery. Also
 * sends delivery the {@code OutboxWake} after a commit that enqueued rows.
 */
public final class OutboxCommands {
  private static final Logger LOG = Logger.getLogger(OutboxCommands.class.getName());
  private static final long PRUNE_EVERY_MS = 3_600_000;
  private static final int PRUNE_MAX = 5_000;

  private final Function<String, TenantStore> stores;
  private final WorkerExecutor writer;
  private final BoundedChannel<DeliveryInbox> toDelivery;
  /** Per tenant, when done rows and ledger rows were last pruned (lazily, from a Settle). */
  private final Map<String, Long> lastPrune = new HashMap<>();

  public OutboxCommands(Function<String, TenantStore> stores, WorkerExecutor writer,
      BoundedChannel<DeliveryInbox> toDelivery) {
    this.stores = stores;
    this.writer = writer;
    this.toDelivery = toDelivery;
  }

  /** New outbox rows were committed for {@code tenant}. */
  public void wake(String tenant) {
    toDelivery.sendOwed(new DeliveryInbox.OutboxWake(tenant));
  }

  /** Runs one command; {@code release} gives the request's credit back when it is answered. */
  public void handle(OutboxCommand cmd, Runnable release) {
    TenantStore store = stores.apply(cmd.tenant());
    if (store == null) {
      release.run();
      toDelivery.sendOwed(failed(cmd, "unknown tenant " + cmd.tenant()));
      return;
    }
    Future<OutboxReply> work;
    if (cmd instanceof OutboxCommand.ClaimDue c) {
      work = write(store, conn -> new OutboxReply.Claimed(c.requestId(),
          OutboxQueue.claimDue(conn, System.currentTimeMillis(), c.limit(), c.leaseMs()), null));
    } else if (cmd instanceof OutboxCommand.Settle s) {
      boolean prune = duePrune(s.tenant());
      work = write(store, conn -> {
        int dead = OutboxQueue.settle(conn, s.settlements());
        if (prune) {
          long now = System.currentTimeMillis();
          OutboxQueue.pruneDone(conn, now, PRUNE_MAX);
          ProcessedEventLedger.prune(conn, now, PRUNE_MAX);
        }
        return new OutboxReply.Settled(s.requestId(), dead, null);
      });
    } else if (cmd instanceof OutboxCommand.ClaimLedger l) {
      work = write(store, conn -> new OutboxReply.LedgerClaimed(l.requestId(),
          ProcessedEventLedger.claim(conn, l.eventId(), l.handler(), System.currentTimeMillis(), l.leaseMs()), null));
    } else if (cmd instanceof OutboxCommand.FinishLedger f) {
      work = write(store, conn -> new OutboxReply.LedgerFinished(f.requestId(), f.done()
          ? ProcessedEventLedger.done(conn, f.eventId(), f.handler(), f.startedAt(), System.currentTimeMillis())
          : ProcessedEventLedger.release(conn, f.eventId(), f.handler(), f.startedAt()), null));
    } else if (cmd instanceof OutboxCommand.IndexSearch i) {
      work = write(store, conn -> {
        if (DomainEvent.EVENT_DELETED.equals(i.type())) {
          SearchIndex.remove(conn, i.seq());
        } else {
          SearchIndex.upsert(conn, i.seq());
        }
        return new OutboxReply.SearchIndexed(i.requestId(), null);
      });
    } else {
      throw new IllegalStateException("unhandled outbox command " + cmd);
    }
    work.onComplete(ar -> {
      release.run();
      if (ar.succeeded()) {
        toDelivery.sendOwed(ar.result());
      } else {
        LOG.log(Level.WARNING, "outbox work failed for tenant " + cmd.tenant() + ": " + cmd.getClass().getSimpleName(),
            ar.cause());
        toDelivery.sendOwed(failed(cmd, String.valueOf(ar.cause().getMessage())));
      }
    });
  }

  private boolean duePrune(String tenant) {
    long now = System.currentTimeMillis();
    Long last = lastPrune.get(tenant);
    if (last != null && now - last < PRUNE_EVERY_MS) {
      return false;
    }
    lastPrune.put(tenant, now);
    return true;
  }

  private Future<OutboxReply> write(TenantStore store, TenantStore.SqlWork<OutboxReply> work) {
    return writer.executeBlocking(() -> store.outboxTransaction(work), true);
  }

  private static OutboxReply failed(OutboxCommand cmd, String error) {
    String e = error == null ? "failed" : error;
    if (cmd instanceof OutboxCommand.ClaimDue) {
      return new OutboxReply.Claimed(cmd.requestId(), null, e);
    } else if (cmd instanceof OutboxCommand.Settle) {
      return new OutboxReply.Settled(cmd.requestId(), 0, e);
    } else if (cmd instanceof OutboxCommand.ClaimLedger) {
      return new OutboxReply.LedgerClaimed(cmd.requestId(), null, e);
    } else if (cmd instanceof OutboxCommand.FinishLedger) {
      return new OutboxReply.LedgerFinished(cmd.requestId(), false, e);
    }
    return new OutboxReply.SearchIndexed(cmd.requestId(), e);
  }
}
