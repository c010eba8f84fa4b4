package dev.cairn.delivery.outbox;

import dev.cairn.store.outbox.OutboxQueue;
import dev.cairn.store.outbox.OutboxRow;
import dev.cairn.store.outbox.Settlement;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * {@code outbox.backend=db}: claims due rows (a claim older than the 600 s lease is reclaimed), runs
 * the handlers under the ledger, and settles each row: done; deferred to the lease expiry without
 * spending an attempt when a handler's claim is held elsewhere; retried with {@link RetryPolicy} after
 * a failure; dead-lettered when the failed attempt was the last ({@code outbox.max_attempts}).
 */
final class DbOutboxConsumer {
  private static final Logger LOG = Logger.getLogger(DbOutboxConsumer.class.getName());

  private final DbClient db;
  private final HandlerRunner runner;
  private final OutboxSettings settings;
  private final OutboxMetrics metrics;

  DbOutboxConsumer(DbClient db, HandlerRunner runner, OutboxSettings settings, OutboxMetrics metrics) {
    this.db = db;
    this.runner = runner;
    this.settings = settings;
    this.metrics = metrics;
  }

  /**
   * One cycle for {@code tenant}; see {@link OutboxPump} for the answer. With no handler outside the DB
   * the engine marks the due rows done as it claims them, in one transaction (the search indexer reads
   * the rows on its own); otherwise the handlers run here under the ledger and the rows are settled.
   */
  Future<Long> cycle(String tenant) {
    boolean localOnly = runner.isEmpty();
    return db.claimDue(tenant, settings.batch(), settings.claimLeaseMs(), localOnly).compose(claim -> {
      if (claim.settled() > 0) {
        metrics.published(OutboxSettings.DB, claim.settled());
      }
      if (claim.rows().isEmpty()) {
        if (claim.settled() >= settings.batch()) {
          return Future.succeededFuture(OutboxPump.AGAIN);
        }
        return Future.succeededFuture(claim.nextDueMs() < 0 ? OutboxPump.IDLE : claim.nextDueMs());
      }
      List<Future<Settlement>> each = new ArrayList<>(claim.rows().size());
      for (OutboxRow row : claim.rows()) {
        each.add(deliver(row));
      }
      return Future.join(each).transform(x -> {
        List<Settlement> settlements = new ArrayList<>(each.size());
        long next = claim.rows().size() + claim.settled() >= settings.batch() ? OutboxPump.AGAIN : claim.nextDueMs();
        int done = 0;
        for (Future<Settlement> f : each) {
          Settlement s = f.result();
          settlements.add(s);
          if (s.kind() == Settlement.Kind.DONE) {
            done++;
          } else if (s.kind() != Settlement.Kind.DEAD_LETTER && next != OutboxPump.AGAIN) {
            next = next < 0 ? s.availableAt() : Math.min(next, s.availableAt());
          }
        }
        int delivered = done;
        long nextDue = next;
        return db.settle(tenant, settlements).map(dead -> {
          metrics.published(OutboxSettings.DB, delivered);
          if (dead > 0) {
            metrics.deadLettered(dead);
            LOG.severe("outbox: " + dead + " row(s) of tenant " + tenant + " dead-lettered after "
                + settings.maxAttempts() + " attempts");
          }
          return nextDue;
        });
      });
    });
  }

  private Future<Settlement> deliver(OutboxRow row) {
    OutboxMessage m;
    try {
      m = OutboxMessage.parse(row.body());
    } catch (RuntimeException e) {
      return Future.succeededFuture(failed(row, "unreadable body: " + e.getMessage()));
    }
    return runner.run(m).transform(ar -> {
      if (ar.failed()) {
        return Future.succeededFuture(failed(row, String.valueOf(ar.cause())));
      }
      HandlerRunner.Outcome o = ar.result();
      return Future.succeededFuture(switch (o.kind()) {
        case DONE -> Settlement.done(row);
        case DEFER -> Settlement.defer(row, o.deferUntil(), "handler claim held elsewhere");
        case RETRY -> failed(row, o.error());
      });
    });
  }

  private Settlement failed(OutboxRow row, String error) {
    int attempt = row.attempts() + 1;
    if (attempt >= settings.maxAttempts()) {
      return Settlement.deadLetter(row, error);
    }
    return Settlement.retry(row, System.currentTimeMillis() + RetryPolicy.retryBackoff(attempt).toMillis(), error);
  }
}
