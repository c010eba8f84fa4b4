package dev.cairn.store.outbox;

import dev.cairn.config.RepeatedFailureLog;
import dev.cairn.delivery.DeliveryInbox;
import dev.cairn.delivery.OutboxReply;
import dev.cairn.store.OutboxCommand;
import dev.cairn.tree.BoundedChannel;
import io.vertx.core.Future;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * database-engine's side of the outbox: runs each {@link OutboxCommand} on its tenant's
 * {@link OutboxStore} (SQLite or MySQL: the store decides threads and transactions, never the event
 * loop) and answers into delivery. Also sends delivery the {@code OutboxWake} after a commit that
 * enqueued rows. Runs on the engine's context; the stores answer there.
 */
public final class OutboxCommands {
  private static final Logger LOG = Logger.getLogger(OutboxCommands.class.getName());
  private static final long PRUNE_EVERY_MS = 3_600_000;
  private static final int PRUNE_MAX = 5_000;
  /** Repeats of failing outbox work are summed up at most this often (a store that is down fails every claim). */
  private static final long FAILURE_LOG_INTERVAL_MS = 10_000;

  private final Function<String, OutboxStore> stores;
  private final BoundedChannel<DeliveryInbox> toDelivery;
  /** Per tenant, when done rows and ledger rows were last pruned (lazily, from a Settle, a settling claim or a write). */
  private final Map<String, Long> lastPrune = new HashMap<>();
  /** Per tenant, the log of its failing outbox work. */
  private final Map<String, RepeatedFailureLog> failures = new HashMap<>();

  /** {@code stores}: a tenant's outbox store, null when the tenant has no open store. */
  public OutboxCommands(Function<String, OutboxStore> stores, BoundedChannel<DeliveryInbox> toDelivery) {
    this.stores = stores;
    this.toDelivery = toDelivery;
  }

  /** New outbox rows were committed for {@code tenant}. */
  public void wake(String tenant) {
    toDelivery.sendOwed(new DeliveryInbox.OutboxWake(tenant));
  }

  /** Committed rows of {@code tenant} written claimed by this process: the relay publishes them now. */
  public void claimedOnWrite(String tenant, java.util.List<OutboxRow> rows) {
    if (!rows.isEmpty()) {
      toDelivery.sendOwed(new DeliveryInbox.OutboxClaimed(tenant, rows));
    }
  }

  /** Runs one command; {@code release} gives the request's credit back when it is answered. */
  public void handle(OutboxCommand cmd, Runnable release) {
    OutboxStore store = stores.apply(cmd.tenant());
    if (store == null) {
      release.run();
      toDelivery.sendOwed(failed(cmd, "unknown tenant " + cmd.tenant()));
      return;
    }
    Future<OutboxReply> reply;
    try {
      reply = run(store, cmd);
    } catch (RuntimeException e) {
      reply = Future.failedFuture(e);
    }
    reply.onComplete(ar -> {
      release.run();
      RepeatedFailureLog tenantLog = failures.computeIfAbsent(cmd.tenant(),
          t -> new RepeatedFailureLog(LOG, Level.WARNING, "outbox work for tenant " + t, FAILURE_LOG_INTERVAL_MS));
      if (ar.succeeded()) {
        tenantLog.succeeded(System.currentTimeMillis());
        toDelivery.sendOwed(ar.result());
      } else {
        tenantLog.failed(cmd.getClass().getSimpleName(), ar.cause(), System.currentTimeMillis());
        toDelivery.sendOwed(failed(cmd, String.valueOf(ar.cause().getMessage())));
      }
    });
  }

  private Future<OutboxReply> run(OutboxStore store, OutboxCommand cmd) {
    long now = System.currentTimeMillis();
    if (cmd instanceof OutboxCommand.ClaimDue c) {
      // settle: no handler outside the DB, delivered as soon as claimed (the search indexer reads the rows on its own)
      if (c.settle()) { // no Settle follows these claims: prune from here
        pruneIfDue(c.tenant(), store);
      }
      return (c.settle() ? store.claimAndMarkDone(now, c.limit(), c.leaseMs())
          : store.claimDue(now, c.limit(), c.leaseMs(), true))
          .map(claim -> new OutboxReply.Claimed(c.requestId(), claim, null));
    } else if (cmd instanceof OutboxCommand.Settle s) {
      Future<OutboxReply> settled = store.settle(s.settlements())
          .map(r -> new OutboxReply.Settled(s.requestId(), r.left(), r.deadLettered(), null));
      pruneIfDue(s.tenant(), store); // asked right after the settle: on SQLite it usually shares its transaction
      return settled;
    } else if (cmd instanceof OutboxCommand.ClaimLedger l) {
      return store.claimLedger(l.eventId(), l.handler(), now, l.leaseMs())
          .map(claim -> new OutboxReply.LedgerClaimed(l.requestId(), claim, null));
    } else if (cmd instanceof OutboxCommand.FinishLedger f) {
      return store.finishLedger(f.eventId(), f.handler(), f.startedAt(), f.done(), now)
          .map(changed -> new OutboxReply.LedgerFinished(f.requestId(), changed, null));
    }
    throw new IllegalStateException("unhandled outbox command " + cmd);
  }

  /**
   * A store that writes its rows done has neither claims nor settles after a write: its commits ask here
   * (at most once an hour per tenant, like the others).
   */
  public void writtenDone(String tenant) {
    OutboxStore store = stores.apply(tenant);
    if (store != null) {
      pruneIfDue(tenant, store);
    }
  }

  /**
   * Prunes done outbox rows and ledger rows past their retention, at most {@code PRUNE_MAX} each, once an
   * hour per tenant; a full batch asks again at the next chance, so a backlog is worked off in batches.
   */
  private void pruneIfDue(String tenant, OutboxStore store) {
    if (!duePrune(tenant)) {
      return;
    }
    store.prune(System.currentTimeMillis(), PRUNE_MAX).onComplete(ar -> {
      if (ar.failed()) {
        LOG.log(Level.WARNING, "outbox prune failed for tenant " + tenant, ar.cause());
      } else if (ar.result().outboxRows() >= PRUNE_MAX || ar.result().ledgerRows() >= PRUNE_MAX) {
        lastPrune.remove(tenant);
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

  private static OutboxReply failed(OutboxCommand cmd, String error) {
    String e = error == null ? "failed" : error;
    if (cmd instanceof OutboxCommand.ClaimDue) {
      return new OutboxReply.Claimed(cmd.requestId(), null, e);
    } else if (cmd instanceof OutboxCommand.Settle) {
      return new OutboxReply.Settled(cmd.requestId(), 0, 0, e);
    } else if (cmd instanceof OutboxCommand.ClaimLedger) {
      return new OutboxReply.LedgerClaimed(cmd.requestId(), null, e);
    } else if (cmd instanceof OutboxCommand.FinishLedger) {
      return new OutboxReply.LedgerFinished(cmd.requestId(), false, e);
    }
    throw new IllegalStateException("unhandled outbox command " + cmd);
  }
}
