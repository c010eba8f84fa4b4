package dev.cairn.delivery.outbox;

import dev.cairn.store.outbox.LedgerClaim;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs every handler for one domain event under the processed-event ledger, for both backends: claim
 * {@code (event_id, handler)}, run, then mark done or release with the claim's {@code started_at}. A
 * done claim skips the handler; a fresh claim held elsewhere defers; a ledger error skips the handler
 * and asks for a retry. The outcome of the event is the worst of its handlers'.
 */
final class HandlerRunner {
  private static final Logger LOG = Logger.getLogger(HandlerRunner.class.getName());

  /** DONE: every handler done or skipped. DEFER: some claim is held elsewhere until {@code deferUntil}. RETRY: failed. */
  record Outcome(Kind kind, long deferUntil, String error) {
    enum Kind { DONE, DEFER, RETRY }

    static final Outcome DONE = new Outcome(Kind.DONE, 0, null);

    static Outcome retry(String error) {
      return new Outcome(Kind.RETRY, 0, error);
    }
  }

  private final List<OutboxHandler> handlers;
  private final DbClient db;
  private final OutboxMetrics metrics;
  private final long ledgerLeaseMs;

  HandlerRunner(List<OutboxHandler> handlers, DbClient db, OutboxMetrics metrics, long ledgerLeaseMs) {
    this.handlers = List.copyOf(handlers);
    this.db = db;
    this.metrics = metrics;
    this.ledgerLeaseMs = ledgerLeaseMs;
  }

  /** True when no handler runs outside the DB (only the engine's local handlers). */
  boolean isEmpty() {
    return handlers.isEmpty();
  }

  Future<Outcome> run(OutboxMessage m) {
    List<Future<Outcome>> each = new ArrayList<>(handlers.size());
    for (OutboxHandler h : handlers) {
      each.add(runOne(h, m));
    }
    return Future.join(each).transform(ar -> {
      Outcome worst = Outcome.DONE;
      for (Future<Outcome> f : each) {
        Outcome o = f.succeeded() ? f.result() : Outcome.retry(String.valueOf(f.cause()));
        if (o.kind() == Outcome.Kind.RETRY) {
          worst = worst.kind() == Outcome.Kind.RETRY ? worst : o;
        } else if (o.kind() == Outcome.Kind.DEFER && worst.kind() != Outcome.Kind.RETRY) {
          worst = worst.kind() == Outcome.Kind.DEFER && worst.deferUntil() >= o.deferUntil() ? worst : o;
        }
      }
      return Future.succeededFuture(worst);
    });
  }

  private Future<Outcome> runOne(OutboxHandler h, OutboxMessage m) {
    if (m.eventId() == null) {
      // A row from a foreign writer without an event id: no dedup, just run it.
      return h.handle(m).transform(ar -> Future.succeededFuture(result(h, ar.succeeded(), ar.cause())));
    }
    return db.claimLedger(m.tenant(), m.eventId(), h.name(), ledgerLeaseMs).transform(claimed -> {
      if (claimed.failed()) {
        metrics.handlerRun(h.name(), "ledger_error");
        return Future.succeededFuture(Outcome.retry("ledger: " + claimed.cause().getMessage()));
      }
      LedgerClaim claim = claimed.result();
      if (claim instanceof LedgerClaim.AlreadyDone) {
        metrics.handlerRun(h.name(), "skipped");
        return Future.succeededFuture(Outcome.DONE);
      }
      if (claim instanceof LedgerClaim.HeldElsewhere held) {
        metrics.handlerRun(h.name(), "deferred");
        return Future.succeededFuture(new Outcome(Outcome.Kind.DEFER, held.untilMs(), null));
      }
      long startedAt = ((LedgerClaim.Claimed) claim).startedAt();
      Future<Void> effect;
      try {
        effect = h.handle(m);
      } catch (RuntimeException e) {
        effect = Future.failedFuture(e);
      }
      return effect.transform(ran -> {
        Outcome o = result(h, ran.succeeded(), ran.cause());
        return db.finishLedger(m.tenant(), m.eventId(), h.name(), startedAt, ran.succeeded())
            .transform(fin -> {
              if (fin.failed() || !fin.result()) {
                LOG.log(Level.FINE, "ledger " + (ran.succeeded() ? "done" : "release") + " of " + m.eventId() + "/"
                    + h.name() + " changed nothing (claim taken over or ledger error)");
              }
              return Future.succeededFuture(o);
            });
      });
    });
  }

  private Outcome result(OutboxHandler h, boolean ok, Throwable cause) {
    metrics.handlerRun(h.name(), ok ? "ok" : "failed");
    return ok ? Outcome.DONE : Outcome.retry(h.name() + ": " + (cause == null ? "failed" : cause.getMessage()));
  }
}
