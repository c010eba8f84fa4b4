package dev.cairn.store;

import dev.cairn.root.RootInbox;
import dev.cairn.tree.BoundedChannel;
import io.vertx.core.Future;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * database-engine's reads: a REQ's or COUNT's history, a NIP-77 NEG-OPEN's items and a live catch-up
 * range across pods, each run by the tenant's store off the event loop (SQLite: its reader pool) and
 * answered to root. Each keeps its upstream credit until answered. Engine's context only.
 */
final class StoreReads {
  /** Under the engine's name, as before these reads had a class of their own (operators' log filters). */
  private static final Logger LOG = Logger.getLogger(DatabaseEngine.class.getName());

  /**
   * A REQ's limits ({@code limits.default_limit}, {@code limits.max_limit}) and {@code limits.query_budget}
   * in ms (0: none), its text for the client and its meter (per tenant); the meter of the queries dropped
   * because their connection closed before their turn (per tenant).
   */
  record Limits(int defaultLimit, int maxLimit, long budgetMillis, String budgetText, Consumer<String> budgetExceeded,
      Consumer<String> dropped) {}

  private final Map<String, TenantStore> stores;
  private final BoundedChannel<RootInbox> toRoot;
  /** The engine inbox's credit for the message being answered. */
  private final Supplier<Runnable> hold;
  private final Limits limits;
  /** REQs' and COUNTs' reads, in turns across connections. */
  private final ReadTurns turns;
  /**
   * The connections closed last (ids are never reused): a query of theirs that arrives after the close
   * (it was still being admitted by policy, which the close overtook) is dropped too. A few thousand
   * cover the moments a query can trail its connection's close, even under heavy connection churn.
   */
  private final Map<Long, Boolean> recentlyClosed = new java.util.LinkedHashMap<>(64, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
      return size() > RECENTLY_CLOSED;
    }
  };
  private static final int RECENTLY_CLOSED = 4096;

  /** {@code concurrency}: history reads started at once and not yet answered. */
  StoreReads(Map<String, TenantStore> stores, BoundedChannel<RootInbox> toRoot, Supplier<Runnable> hold, Limits limits,
      int concurrency) {
    this.stores = stores;
    this.toRoot = toRoot;
    this.hold = hold;
    this.limits = limits;
    this.turns = new ReadTurns(concurrency);
  }

  /**
   * A REQ's history or a COUNT, within {@code limits.query_budget}: past it the answer is a CLOSED that
   * says what to change, with no partial answer.
   */
  void query(DatabaseInbox.Query q) {
    Runnable release = hold.get();
    TenantStore store = stores.get(q.tenant());
    if (store == null) { // a runtime tenant removed while its client was connected
      release.run();
      toRoot.sendOwed(new RootInbox.HistoryDone(q.connId(), q.subId(), q.subSerial(), q.count(), List.of(), 0,
          "error: " + DatabaseEngine.UNKNOWN_TENANT));
      return;
    }
    Runnable drop = () -> {
      release.run();
      limits.dropped().accept(q.tenant());
      toRoot.sendOwed(new RootInbox.HistoryDone(q.connId(), q.subId(), q.subSerial(), q.count(), List.of(), 0,
          "error: connection closed"));
    };
    if (recentlyClosed.containsKey(q.connId())) {
      drop.run();
      return;
    }
    turns.run(q.connId(), () -> answer(q, store, release), drop);
  }

  /** The connection closed: its queries still waiting for their turn, or still to come, are answered without running. */
  void disconnected(long connId) {
    recentlyClosed.put(connId, Boolean.TRUE);
    turns.forget(connId);
  }

  /** Runs {@code q} on {@code store} and answers it; the future completes with the answer. */
  private Future<RootInbox.HistoryDone> answer(DatabaseInbox.Query q, TenantStore store, Runnable release) {
    long now = System.currentTimeMillis() / 1000;
    Future<RootInbox.HistoryDone> answer;
    try {
      answer = q.count()
          ? store.count(q.filters(), q.seqBelow(), now, limits.budgetMillis())
              .map(n -> new RootInbox.HistoryDone(q.connId(), q.subId(), q.subSerial(), true, List.of(), n, null))
          : store.query(q.filters(), q.seqBelow(), limits.defaultLimit(), limits.maxLimit(), now, limits.budgetMillis())
              .map(events -> new RootInbox.HistoryDone(q.connId(), q.subId(), q.subSerial(), false, events, 0, null));
    } catch (RuntimeException e) { // answered like a failed read: the credit goes back, the client gets CLOSED
      answer = Future.failedFuture(e);
    }
    return answer.onComplete(ar -> {
      release.run();
      if (ar.succeeded()) {
        toRoot.sendOwed(ar.result());
      } else if (ar.cause() instanceof QueryBudgetExceeded) {
        // The client's filter, not the store: no stack trace; the answer says what to change.
        limits.budgetExceeded().accept(q.tenant());
        LOG.fine(() -> "tenant " + q.tenant() + ": query " + q.subId() + " stopped by limits.query_budget");
        toRoot.sendOwed(new RootInbox.HistoryDone(q.connId(), q.subId(), q.subSerial(), q.count(), List.of(), 0,
            "error: query exceeded limits.query_budget (" + limits.budgetText() + "); narrow the filter"));
      } else {
        LOG.log(Level.WARNING, "query failed for tenant " + q.tenant(), ar.cause());
        toRoot.sendOwed(new RootInbox.HistoryDone(q.connId(), q.subId(), q.subSerial(), q.count(), List.of(), 0,
            "error: query failed"));
      }
    });
  }

  /**
   * NIP-77: reads a NEG-OPEN's items on the reader pool, like a REQ's history (the event loop never
   * waits on SQLite), and builds the sorted set there too: the session gets it ready to use.
   */
  void syncRead(DatabaseInbox.SyncRead r) {
    Runnable release = hold.get();
    TenantStore store = stores.get(r.tenant());
    long now = System.currentTimeMillis() / 1000;
    if (store == null) {
      release.run();
      toRoot.sendOwed(new RootInbox.SyncReadDone(r.ticket(), null, "error: " + DatabaseEngine.UNKNOWN_TENANT));
      return;
    }
    store.syncItems(r.filter(), r.maxRecords(), now)
        .onComplete(ar -> {
          release.run();
          if (ar.succeeded()) {
            toRoot.sendOwed(new RootInbox.SyncReadDone(r.ticket(), ar.result(), null));
          } else {
            LOG.log(Level.WARNING, "negentropy read failed for tenant " + r.tenant(), ar.cause());
            toRoot.sendOwed(new RootInbox.SyncReadDone(r.ticket(), null, "error: query failed"));
          }
        });
  }

  /**
   * Live fan-out across pods: a seq range of the tenant's stored events ({@link TenantStore#range}), read
   * like a REQ's history. The answer says how far it covered: the whole range, or up to its last row when it
   * hit {@code max} (network-manager asks for the rest).
   */
  void catchUp(DatabaseInbox.CatchUp c) {
    Runnable release = hold.get();
    TenantStore store = stores.get(c.tenant());
    Future<List<StoredEvent>> read = store == null
        ? Future.failedFuture("tenant " + c.tenant() + " is not served here")
        : store.range(c.fromSeq(), c.toSeqExclusive(), c.max());
    read.onComplete(ar -> {
      release.run();
      if (ar.succeeded()) {
        List<StoredEvent> events = ar.result();
        long covered = events.size() < c.max() ? c.toSeqExclusive() : events.get(events.size() - 1).seq() + 1;
        toRoot.sendOwed(new RootInbox.CaughtUp(c.tenant(), c.fromSeq(), covered, events, null));
      } else {
        LOG.log(Level.WARNING, "catch-up read failed for tenant " + c.tenant(), ar.cause());
        toRoot.sendOwed(new RootInbox.CaughtUp(c.tenant(), c.fromSeq(), c.fromSeq(), List.of(), "error: read failed"));
      }
    });
  }
}
