package dev.cairn.network;

import dev.cairn.config.Limits;
import dev.cairn.nostr.RelayMessages;
import dev.cairn.nostr.negentropy.Negentropy;
import dev.cairn.nostr.negentropy.NegentropyException;
import dev.cairn.nostr.negentropy.NegentropyHex;
import dev.cairn.nostr.negentropy.NegentropyServer;
import dev.cairn.nostr.negentropy.VectorStorage;
import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The NIP-77 sync sessions of one conn-worker's connections. A session is opened by NEG-OPEN
 * (its items are read by database-engine meanwhile), answers each NEG-MSG with one reply and ends
 * with NEG-CLOSE, a NEG-ERR, its connection or the idle timeout. Confined to the conn-worker's
 * event loop; replies over large sets are computed on {@code executor}, so a million-item
 * fingerprint never stalls the other connections of this worker.
 */
final class NegentropySessions {
  /**
   * Sets up to this size are reconciled on the event loop: a reply costs O(items) at worst, about
   * 1 ms here for 20k items, less than the two thread hops a worker would add.
   */
  static final int INLINE_MAX_ITEMS = 20_000;

  /** Where a session's frames go: its connection's listener. */
  @FunctionalInterface
  interface Out {
    void write(long connId, byte[] frame);
  }

  private final Limits limits;
  private final SyncBudget budget;
  private final WorkerExecutor executor;
  private final Function<String, AtomicLong> gauge;
  private final Out out;
  private final Map<Long, Conn> conns = new HashMap<>();
  private long nextSession = 1;

  /** One connection's sessions, by sub id. */
  private static final class Conn {
    final String tenant;
    final Map<String, Session> sessions = new LinkedHashMap<>(2);

    Conn(String tenant) {
      this.tenant = tenant;
    }
  }

  /** One sync: waiting for its items ({@code server} null), idle, or computing a reply ({@code busy}). */
  private static final class Session {
    final long id;
    final byte[] initial;
    NegentropyServer server;
    int items;
    boolean busy;
    long lastActive;

    Session(long id, byte[] initial, long now) {
      this.id = id;
      this.initial = initial;
      this.lastActive = now;
    }
  }

  NegentropySessions(Limits limits, SyncBudget budget, WorkerExecutor executor, Function<String, AtomicLong> gauge,
      Out out) {
    this.limits = limits;
    this.budget = budget;
    this.executor = executor;
    this.gauge = gauge;
    this.out = out;
  }

  /**
   * NEG-OPEN: registers the session (replacing one of the same id) and returns its id, to be named
   * in the items read for it; -1 when the connection has too many sessions (answered NEG-ERR).
   */
  long open(long connId, String tenant, String subId, byte[] initial, long nowMillis) {
    Conn c = conns.computeIfAbsent(connId, x -> new Conn(tenant));
    Session previous = c.sessions.get(subId);
    if (previous == null && c.sessions.size() >= limits.negentropyMaxSessions()) {
      out.write(connId, RelayMessages.negErr(subId, "blocked: too many open negentropy sessions (max "
          + limits.negentropyMaxSessions() + "), close one first"));
      forgetIfEmpty(connId, c);
      return -1;
    }
    Session s = new Session(nextSession++, initial, nowMillis);
    c.sessions.put(subId, s);
    if (previous == null) {
      gauge.apply(tenant).incrementAndGet();
    } else {
      budget.release(previous.items);
    }
    return s.id;
  }

  /** The items read for a NEG-OPEN: the session answers its initial message (or NEG-ERR). */
  void itemsRead(long connId, String subId, long session, VectorStorage items, String error, long nowMillis) {
    Conn c = conns.get(connId);
    Session s = c == null ? null : c.sessions.get(subId);
    if (s == null || s.id != session) {
      return; // closed, or replaced by a newer NEG-OPEN, meanwhile
    }
    if (error != null) {
      end(connId, c, subId, error);
      return;
    }
    if (!budget.tryHold(items.size())) {
      end(connId, c, subId, "blocked: the relay holds too many negentropy items right now (max " + budget.max()
          + " for all sessions), retry later");
      return;
    }
    s.server = Negentropy.server(items, limits.negentropyFrameSizeLimit());
    s.items = items.size();
    reply(connId, c, subId, s, s.initial, nowMillis);
  }

  /** NEG-MSG: the next round of an open session. */
  void message(long connId, String subId, byte[] message, long nowMillis) {
    Conn c = conns.get(connId);
    Session s = c == null ? null : c.sessions.get(subId);
    if (s == null) {
      out.write(connId, RelayMessages.negErr(subId, "closed: no open negentropy session with this id"));
      return;
    }
    if (s.server == null || s.busy) {
      // the protocol is strictly one message, one reply: a second one before the reply is a client bug
      end(connId, c, subId, "invalid: NEG-MSG sent before the relay answered the previous message");
      return;
    }
    reply(connId, c, subId, s, message, nowMillis);
  }

  /** NEG-CLOSE: no answer (NIP-77). */
  void close(long connId, String subId) {
    Conn c = conns.get(connId);
    if (c != null && drop(c, subId)) {
      forgetIfEmpty(connId, c);
    }
  }

  /** The connection is gone: its sessions with it. */
  void detach(long connId) {
    Conn c = conns.remove(connId);
    if (c != null) {
      gauge.apply(c.tenant).addAndGet(-c.sessions.size());
      c.sessions.values().forEach(s -> budget.release(s.items));
      c.sessions.clear(); // a reply still being computed finds its session gone
    }
  }

  /** This conn-worker stops: every session is dropped (the gauge stays exact across a restart). */
  void clear() {
    new ArrayList<>(conns.keySet()).forEach(this::detach);
  }

  /** Ends sessions idle for longer than the timeout with {@code NEG-ERR "closed: ..."}. */
  void sweepIdle(long nowMillis) {
    long timeout = limits.negentropyIdleTimeoutMillis();
    List<Long> emptied = new ArrayList<>(0);
    for (Map.Entry<Long, Conn> e : conns.entrySet()) {
      Conn c = e.getValue();
      for (Iterator<Map.Entry<String, Session>> it = c.sessions.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<String, Session> se = it.next();
        Session s = se.getValue();
        // a session waiting on the relay (items being read, reply being computed) is not idle
        if (s.server != null && !s.busy && nowMillis - s.lastActive > timeout) {
          it.remove();
          gauge.apply(c.tenant).decrementAndGet();
          budget.release(s.items);
          out.write(e.getKey(), RelayMessages.negErr(se.getKey(), "closed: idle for more than "
              + Math.max(1, timeout / 1000) + " s"));
        }
      }
      if (c.sessions.isEmpty()) {
        emptied.add(e.getKey());
      }
    }
    emptied.forEach(conns::remove);
  }

  /** Sessions open on this worker (tests and diagnostics). */
  int size() {
    return conns.values().stream().mapToInt(c -> c.sessions.size()).sum();
  }

  private void reply(long connId, Conn c, String subId, Session s, byte[] message, long nowMillis) {
    s.busy = true;
    s.lastActive = nowMillis;
    NegentropyServer server = s.server;
    Future<String> answer = s.items <= INLINE_MAX_ITEMS
        ? compute(server, message)
        : executor.executeBlocking(() -> NegentropyHex.encode(server.reconcile(message)), false);
    answer.onComplete(ar -> {
      if (c.sessions.get(subId) != s) {
        return; // closed or replaced while the reply was computed
      }
      s.busy = false;
      s.lastActive = System.currentTimeMillis();
      if (ar.succeeded()) {
        out.write(connId, RelayMessages.negMsg(subId, ar.result()));
      } else if (ar.cause() instanceof NegentropyException e) {
        end(connId, c, subId, "invalid: " + e.getMessage());
      } else {
        end(connId, c, subId, "error: could not answer the negentropy message");
      }
    });
  }

  private static Future<String> compute(NegentropyServer server, byte[] message) {
    try {
      return Future.succeededFuture(NegentropyHex.encode(server.reconcile(message)));
    } catch (NegentropyException | RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /** Drops the session and tells the client why. */
  private void end(long connId, Conn c, String subId, String reason) {
    drop(c, subId);
    forgetIfEmpty(connId, c);
    out.write(connId, RelayMessages.negErr(subId, reason));
  }

  /** Removes a session: the gauge and the budget follow. */
  private boolean drop(Conn c, String subId) {
    Session s = c.sessions.remove(subId);
    if (s == null) {
      return false;
    }
    gauge.apply(c.tenant).decrementAndGet();
    budget.release(s.items);
    return true;
  }

  private void forgetIfEmpty(long connId, Conn c) {
    if (c.sessions.isEmpty()) {
      conns.remove(connId);
    }
  }
}
