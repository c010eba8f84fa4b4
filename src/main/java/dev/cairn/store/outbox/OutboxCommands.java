package dev.cairn.store.outbox;

import dev.cairn.delivery.DeliveryInbox;
import dev.cairn.delivery.OutboxReply;
import dev.cairn.store.OutboxCommand;
import dev.cairn.store.SqliteTenantStore;
import dev.cairn.store.TenantWriters;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.store.Sql;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * database-engine's side of the outbox: runs {@link OutboxCommand}s as JDBC on the engine's executors
 * (writes on the tenant's writer lane, never on the event loop) and answers into delivery. Also
 * sends delivery the {@code OutboxWake} after a commit that enqueued rows.
 */
public final class OutboxCommands {
  private static final Logger LOG = Logger.getLogger(OutboxCommands.class.getName());
  private static final long PRUNE_EVERY_MS = 3_600_000;
  private static final int PRUNE_MAX = 5_000;
  /** Commands in one transaction at most. */
  private static final int MAX_BATCH = 1024;

  private final Function<String, SqliteTenantStore> stores;
  private final TenantWriters writers;
  private final BoundedChannel<DeliveryInbox> toDelivery;
  /** Per tenant, when done rows and ledger rows were last pruned (lazily, from a Settle). */
  private final Map<String, Long> lastPrune = new HashMap<>();

  public OutboxCommands(Function<String, SqliteTenantStore> stores, TenantWriters writers,
      BoundedChannel<DeliveryInbox> toDelivery) {
    this.stores = stores;
    this.writers = writers;
    this.toDelivery = toDelivery;
  }

  /** New outbox rows were committed for {@code tenant}. */
  public void wake(String tenant) {
    toDelivery.sendOwed(new DeliveryInbox.OutboxWake(tenant));
  }

  /**
   * Queues one command; {@code release} gives the request's credit back when it is answered. Commands
   * of a tenant that arrive while its previous batch runs go together into the next transaction
   * (group commit, as for events), each under its own savepoint so one failure fails only itself.
   */
  public void handle(OutboxCommand cmd, Runnable release) {
    SqliteTenantStore store = stores.apply(cmd.tenant());
    if (store == null) {
      release.run();
      toDelivery.sendOwed(failed(cmd, "unknown tenant " + cmd.tenant()));
      return;
    }
    pending.computeIfAbsent(cmd.tenant(), t -> new ArrayList<>()).add(new Queued(cmd, workFor(cmd), release));
    runNext(cmd.tenant());
  }

  private record Queued(OutboxCommand cmd, SqliteTenantStore.SqlWork<OutboxReply> work, Runnable release) {}

  private final Map<String, List<Queued>> pending = new HashMap<>();
  private final Set<String> running = new HashSet<>();

  private void runNext(String tenant) {
    List<Queued> queue = pending.get(tenant);
    SqliteTenantStore store = stores.apply(tenant);
    if (queue == null || queue.isEmpty() || running.contains(tenant) || store == null) {
      return;
    }
    List<Queued> batch = new ArrayList<>(queue.subList(0, Math.min(MAX_BATCH, queue.size())));
    queue.subList(0, batch.size()).clear();
    running.add(tenant);
    writers.execute(tenant, () -> store.outboxTransaction(conn -> runIsolated(conn, batch)))
        .onComplete(ar -> {
          running.remove(tenant);
          for (int i = 0; i < batch.size(); i++) {
            Queued q = batch.get(i);
            q.release().run();
            Object r = ar.succeeded() ? ar.result().get(i) : ar.cause();
            if (r instanceof OutboxReply reply) {
              store.outboxSettled(leftBacklog(reply)); // committed: the pending gauge follows at once
              toDelivery.sendOwed(reply);
            } else {
              Throwable t = (Throwable) r;
              LOG.log(Level.WARNING, "outbox work failed for tenant " + tenant + ": "
                  + q.cmd().getClass().getSimpleName(), t);
              toDelivery.sendOwed(failed(q.cmd(), String.valueOf(t.getMessage())));
            }
          }
          runNext(tenant);
        });
  }

  /** Each command under a savepoint: its reply, or the exception that rolled back only its own work. */
  private static List<Object> runIsolated(Sql sql, List<Queued> batch) throws SQLException {
    List<Object> out = new ArrayList<>(batch.size());
    for (Queued q : batch) {
      sql.execute("SAVEPOINT outbox_command");
      try {
        out.add(q.work().run(sql));
        sql.execute("RELEASE outbox_command");
      } catch (SQLException | RuntimeException e) {
        sql.execute("ROLLBACK TO outbox_command");
        sql.execute("RELEASE outbox_command");
        out.add(e);
      }
    }
    return out;
  }

  private SqliteTenantStore.SqlWork<OutboxReply> workFor(OutboxCommand cmd) {
    if (cmd instanceof OutboxCommand.ClaimDue c) {
      return conn -> {
        long now = System.currentTimeMillis();
        OutboxQueue.Claim claim = OutboxQueue.claimDue(conn, c.tenant(), now, c.limit(), c.leaseMs(), !c.settle());
        if (!c.settle()) {
          return new OutboxReply.Claimed(c.requestId(), claim, null);
        }
        // no handler outside the DB: delivered as soon as claimed (the search indexer reads the rows on its own)
        int settled = OutboxQueue.markDone(conn, claim.rows());
        return new OutboxReply.Claimed(c.requestId(), new OutboxQueue.Claim(List.of(), claim.nextDueMs(), settled), null);
      };
    } else if (cmd instanceof OutboxCommand.Settle s) {
      boolean prune = duePrune(s.tenant());
      return conn -> {
        OutboxQueue.Settled settled = OutboxQueue.settle(conn, s.settlements());
        if (prune) {
          long now = System.currentTimeMillis();
          OutboxQueue.pruneDone(conn, now, PRUNE_MAX);
          ProcessedEventLedger.prune(conn, now, PRUNE_MAX);
        }
        return new OutboxReply.Settled(s.requestId(), settled.left(), settled.deadLettered(), null);
      };
    } else if (cmd instanceof OutboxCommand.ClaimLedger l) {
      return conn -> new OutboxReply.LedgerClaimed(l.requestId(),
          ProcessedEventLedger.claim(conn, l.eventId(), l.handler(), System.currentTimeMillis(), l.leaseMs()), null);
    } else if (cmd instanceof OutboxCommand.FinishLedger f) {
      return conn -> new OutboxReply.LedgerFinished(f.requestId(), f.done()
          ? ProcessedEventLedger.done(conn, f.eventId(), f.handler(), f.startedAt(), System.currentTimeMillis())
          : ProcessedEventLedger.release(conn, f.eventId(), f.handler(), f.startedAt()), null);
    }
    throw new IllegalStateException("unhandled outbox command " + cmd);
  }

  /** Outbox rows a committed reply took out of the backlog (done or dead-lettered). */
  private static int leftBacklog(OutboxReply reply) {
    if (reply instanceof OutboxReply.Settled s) {
      return s.left();
    }
    if (reply instanceof OutboxReply.Claimed c && c.claim() != null) {
      return c.claim().settled();
    }
    return 0;
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
