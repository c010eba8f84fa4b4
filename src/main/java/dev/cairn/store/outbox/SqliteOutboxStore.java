package dev.cairn.store.outbox;

import dev.cairn.store.Sql;
import dev.cairn.store.SqliteTenantStore;
import dev.cairn.store.TenantWriters;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The outbox of one SQLite tenant store: {@link OutboxQueue} and {@link ProcessedEventLedger} JDBC on
 * the tenant's writer lane (never on an event loop). Calls that arrive while the previous batch runs
 * go together into the next IMMEDIATE transaction (group commit, as for events), each under its own
 * savepoint so one failure fails only itself. The backlog gauge follows each commit at once.
 */
public final class SqliteOutboxStore implements OutboxStore {
  /** Calls in one transaction at most. */
  private static final int MAX_BATCH = 1024;

  private record Queued<T>(SqliteTenantStore.SqlWork<T> work, ToIntFunction<T> leftBacklog, Promise<T> promise,
      Context caller) {}

  private final String tenant;
  private final SqliteTenantStore store;
  private final TenantWriters writers;
  /** Guarded by itself: callers may sit on any context, completions arrive on the writers' context. */
  private final ArrayDeque<Queued<?>> queue = new ArrayDeque<>();
  private boolean running;

  public SqliteOutboxStore(String tenant, SqliteTenantStore store, TenantWriters writers) {
    this.tenant = tenant;
    this.store = store;
    this.writers = writers;
  }

  /** The tenant store this outbox runs on (a reopened store gets a new outbox store). */
  public SqliteTenantStore tenantStore() {
    return store;
  }

  @Override
  public Future<OutboxQueue.Claim> claimDue(long now, int limit, long leaseMs, boolean withBody) {
    return submit(sql -> OutboxQueue.claimDue(sql, tenant, now, limit, leaseMs, withBody), c -> 0);
  }

  @Override
  public Future<OutboxQueue.Claim> claimAndMarkDone(long now, int limit, long leaseMs) {
    return submit(sql -> {
      OutboxQueue.Claim claim = OutboxQueue.claimDue(sql, tenant, now, limit, leaseMs, false);
      int settled = OutboxQueue.markDone(sql, claim.rows());
      return new OutboxQueue.Claim(List.of(), claim.nextDueMs(), settled);
    }, OutboxQueue.Claim::settled);
  }

  @Override
  public Future<OutboxQueue.Settled> settle(List<Settlement> settlements) {
    List<Settlement> copy = List.copyOf(settlements);
    return submit(sql -> OutboxQueue.settle(sql, copy), OutboxQueue.Settled::left);
  }

  @Override
  public Future<LedgerClaim> claimLedger(String eventId, String handler, long now, long leaseMs) {
    return submit(sql -> ProcessedEventLedger.claim(sql, eventId, handler, now, leaseMs), c -> 0);
  }

  @Override
  public Future<Boolean> finishLedger(String eventId, String handler, long startedAt, boolean done, long now) {
    return submit(sql -> done
        ? ProcessedEventLedger.done(sql, eventId, handler, startedAt, now)
        : ProcessedEventLedger.release(sql, eventId, handler, startedAt), b -> 0);
  }

  @Override
  public Future<Pruned> prune(long now, int max) {
    return submit(sql -> new Pruned(OutboxQueue.pruneDone(sql, now, max), ProcessedEventLedger.prune(sql, now, max)),
        p -> 0);
  }

  @Override
  public long backlog() {
    return store.outboxBacklog();
  }

  private <T> Future<T> submit(SqliteTenantStore.SqlWork<T> work, ToIntFunction<T> leftBacklog) {
    Promise<T> promise = Promise.promise();
    synchronized (queue) {
      queue.add(new Queued<>(work, leftBacklog, promise, Vertx.currentContext()));
    }
    runNext();
    return promise.future();
  }

  private void runNext() {
    List<Queued<?>> batch = new ArrayList<>();
    synchronized (queue) {
      if (running || queue.isEmpty()) {
        return;
      }
      while (!queue.isEmpty() && batch.size() < MAX_BATCH) {
        batch.add(queue.poll());
      }
      running = true;
    }
    writers.execute(tenant, () -> store.outboxTransaction(sql -> runIsolated(sql, batch)))
        .onComplete(ar -> {
          synchronized (queue) {
            running = false;
          }
          for (int i = 0; i < batch.size(); i++) {
            finish(batch.get(i), ar.succeeded() ? ar.result().get(i) : ar.cause());
          }
          runNext();
        });
  }

  /** Each call under a savepoint: its result, or the exception that rolled back only its own work. */
  private static List<Object> runIsolated(Sql sql, List<Queued<?>> batch) throws SQLException {
    List<Object> out = new ArrayList<>(batch.size());
    for (Queued<?> q : batch) {
      sql.execute("SAVEPOINT outbox_command");
      try {
        out.add(new Ok(q.work().run(sql)));
        sql.execute("RELEASE outbox_command");
      } catch (SQLException | RuntimeException e) {
        sql.execute("ROLLBACK TO outbox_command");
        sql.execute("RELEASE outbox_command");
        out.add(e);
      }
    }
    return out;
  }

  /** A call's committed result (wrapped: a work may return any value, null included). */
  private record Ok(Object value) {}

  @SuppressWarnings("unchecked")
  private <T> void finish(Queued<T> q, Object outcome) {
    if (outcome instanceof Ok ok) {
      T value = (T) ok.value();
      store.outboxSettled(q.leftBacklog().applyAsInt(value)); // committed: the pending gauge follows at once
      CallerContext.complete(q.caller(), q.promise(), Future.succeededFuture(value));
    } else {
      Throwable t = outcome instanceof Throwable th ? th : new IllegalStateException(String.valueOf(outcome));
      CallerContext.complete(q.caller(), q.promise(), Future.failedFuture(t));
    }
  }
}
