package dev.cairn.store;

import dev.cairn.root.RootInbox;
import dev.cairn.tree.BoundedChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Group commit (decision 0003): every Persist that arrives while a tenant's commit runs waits in that
 * tenant's {@link CommitQueue} and goes into the next transaction (at most {@code store.max_batch}), taken
 * when that commit starts; each is acked to root after its commit, in its batch's order, and only then
 * gives back its upstream credit, so root's channel bounds the queue. A commit that landed goes on to
 * {@link Landed} (feed, outbox, search index). Engine's context only.
 */
final class GroupCommits {
  private static final Logger LOG = Logger.getLogger(GroupCommits.class.getName());

  /** What follows a commit that landed, after its acks. */
  @FunctionalInterface
  interface Landed {
    void landed(String tenant, TenantStore store, PersistOutcome outcome);
  }

  private record Pending(DatabaseInbox.Persist persist, Runnable release) {}

  private final Map<String, CommitQueue<Pending>> pending = new HashMap<>();
  /** The engine's open stores (read here, never changed). */
  private final Map<String, TenantStore> stores;
  private final int maxBatch;
  private final BoundedChannel<RootInbox> toRoot;
  private final TenantDbHealth health;
  private final CommitMeter meter;
  private final Landed landed;

  GroupCommits(Map<String, TenantStore> stores, int maxBatch, BoundedChannel<RootInbox> toRoot,
      TenantDbHealth health, CommitMeter meter, Landed landed) {
    this.stores = stores;
    this.maxBatch = maxBatch;
    this.toRoot = toRoot;
    this.health = health;
    this.meter = meter;
    this.landed = landed;
  }

  /** Queues {@code persist} for its tenant's next commit; {@code release} gives back its credit once acked. */
  void add(DatabaseInbox.Persist persist, Runnable release) {
    pending.computeIfAbsent(persist.tenant(), t -> new CommitQueue<>()).add(new Pending(persist, release));
    commitNext(persist.tenant());
  }

  /**
   * Asks for the tenant's next group commit, unless one is already coming: on a store that queues its
   * commits (SQLite's writer lane) one runs and at most one more waits, taking its batch when it starts
   * (everything that arrived meanwhile, at most {@code store.max_batch}); on one that does not, one
   * commit at a time, its batch taken now.
   */
  private void commitNext(String tenant) {
    CommitQueue<Pending> queue = pending.get(tenant);
    if (queue == null || queue.isEmpty()) {
      return;
    }
    TenantStore store = stores.get(tenant);
    if (store == null) { // removed at runtime while the events were on their way: refused, as for an unknown tenant
      List<RootInbox.Persisted.Ack> acks = new ArrayList<>();
      for (Pending p : queue.take(Integer.MAX_VALUE)) {
        acks.add(new RootInbox.Persisted.Ack(p.persist().ticket(),
            new PersistResult.Rejected("blocked: " + DatabaseEngine.UNKNOWN_TENANT)));
        p.release().run();
      }
      toRoot.sendOwed(new RootInbox.Persisted(acks));
      return;
    }
    if (store.queuesCommits() ? !queue.arm() : queue.inFlight() > 0) {
      return;
    }
    queue.started();
    store.persistTaken(() -> queue.take(maxBatch), p -> p.persist().event()).onComplete(ar -> {
      queue.completed();
      if (ar.succeeded()) {
        committed(tenant, store, ar.result());
      } else { // the store could not even start the write: its batch (if it took one) is lost to it
        LOG.log(Level.SEVERE, "group commit could not run for tenant " + tenant, ar.cause());
      }
      commitNext(tenant);
    });
  }

  /** After a group commit: the acks (in the batch's order), the credits back, then what follows a landed commit. */
  private void committed(String tenant, TenantStore store, TakenBatch<Pending> taken) {
    List<Pending> batch = taken.batch();
    if (batch.isEmpty()) {
      return;
    }
    meter.committed(tenant, taken.nanos(), batch.size());
    PersistOutcome out = taken.outcome();
    PersistResult refused = out != null ? null : new PersistResult.Rejected(refusal(taken.failure()));
    List<RootInbox.Persisted.Ack> acks = new ArrayList<>(batch.size());
    for (int i = 0; i < batch.size(); i++) {
      PersistResult r = out != null ? out.results().get(i) : refused;
      acks.add(new RootInbox.Persisted.Ack(batch.get(i).persist().ticket(), r));
      batch.get(i).release().run();
    }
    toRoot.sendOwed(new RootInbox.Persisted(acks));
    if (out == null) {
      health.commitFailed(tenant, batch.size(), taken.failure(), store instanceof SqliteTenant);
      return;
    }
    health.commitLanded(tenant);
    landed.landed(tenant, store, out);
  }

  /** The OK message of the events of a group commit that failed as a whole: not their fault, so "error:". */
  private static String refusal(Throwable failure) {
    return failure instanceof StorageFullException
        ? "error: the relay's storage is full, please retry later"
        : "error: could not store the event, please retry";
  }
}
