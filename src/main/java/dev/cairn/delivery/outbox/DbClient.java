package dev.cairn.delivery.outbox;

import dev.cairn.delivery.OutboxReply;
import dev.cairn.store.DatabaseInbox;
import dev.cairn.store.OutboxCommand;
import dev.cairn.store.outbox.LedgerClaim;
import dev.cairn.store.outbox.OutboxQueue;
import dev.cairn.store.outbox.Settlement;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.OrderedSender;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * delivery's requests to database-engine, as futures: each {@link OutboxCommand} carries a request id
 * and its {@link OutboxReply} completes the future. Sends use the bounded channel's credit; what finds
 * no credit waits in the {@link OrderedSender} (bounded by the relay/consumer batch sizes). When the
 * engine is redeployed every open request fails at once (the channel's reset); one unanswered for
 * {@link #TIMEOUT_MS} fails too, so no loop stays stuck.
 */
final class DbClient {
  static final long TIMEOUT_MS = 60_000;

  private record Pending(Promise<OutboxReply> promise, long sentAt) {}

  private final Vertx vertx;
  private final OrderedSender<DatabaseInbox> toDb;
  private final Map<Long, Pending> pending = new HashMap<>();
  private long nextId = 1;
  private long sweeper = -1;

  DbClient(Vertx vertx, BoundedChannel<DatabaseInbox> channel) {
    this.vertx = vertx;
    this.toDb = new OrderedSender<>(channel);
    channel.onReset(this::engineReplaced);
  }

  void start() {
    sweeper = vertx.setPeriodic(10_000, id -> expire());
  }

  void stop() {
    if (sweeper >= 0) {
      vertx.cancelTimer(sweeper);
    }
  }

  /** Claims due rows; with {@code settle} they are done already (no handler outside the DB). */
  Future<OutboxQueue.Claim> claimDue(String tenant, int limit, long leaseMs, boolean settle) {
    return ask(id -> new OutboxCommand.ClaimDue(id, tenant, limit, leaseMs, settle))
        .map(r -> ((OutboxReply.Claimed) r).claim());
  }

  Future<Integer> settle(String tenant, List<Settlement> settlements) {
    return ask(id -> new OutboxCommand.Settle(id, tenant, settlements))
        .map(r -> ((OutboxReply.Settled) r).deadLettered());
  }

  Future<LedgerClaim> claimLedger(String tenant, String eventId, String handler, long leaseMs) {
    return ask(id -> new OutboxCommand.ClaimLedger(id, tenant, eventId, handler, leaseMs))
        .map(r -> ((OutboxReply.LedgerClaimed) r).claim());
  }

  Future<Boolean> finishLedger(String tenant, String eventId, String handler, long startedAt, boolean done) {
    return ask(id -> new OutboxCommand.FinishLedger(id, tenant, eventId, handler, startedAt, done))
        .map(r -> ((OutboxReply.LedgerFinished) r).changed());
  }

  /** An answer from database-engine. */
  void answer(OutboxReply reply) {
    Pending p = pending.remove(reply.requestId());
    if (p == null) {
      return; // expired already
    }
    if (reply.error() != null) {
      p.promise().fail(reply.error());
    } else {
      p.promise().complete(reply);
    }
  }

  private Future<OutboxReply> ask(LongFunction<OutboxCommand> build) {
    long id = nextId++;
    Promise<OutboxReply> promise = Promise.promise();
    pending.put(id, new Pending(promise, System.currentTimeMillis()));
    toDb.send(build.apply(id));
    return promise.future();
  }

  /** database-engine was redeployed: what it held is gone, its callers retry (leases and dedup make that safe). */
  private void engineReplaced() {
    toDb.clear();
    List<Pending> lost = List.copyOf(pending.values());
    pending.clear();
    lost.forEach(p -> p.promise().tryFail("database-engine was redeployed"));
  }

  private void expire() {
    long cutoff = System.currentTimeMillis() - TIMEOUT_MS;
    pending.entrySet().removeIf(e -> {
      if (e.getValue().sentAt() < cutoff) {
        e.getValue().promise().tryFail("database-engine did not answer within " + TIMEOUT_MS + " ms");
        return true;
      }
      return false;
    });
  }
}
