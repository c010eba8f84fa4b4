package dev.cairn.network;

import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * THE subscription registry: conn -> sub -> filters, per tenant, and the only matcher. Owned by
 * network-manager alone (single-threaded); nothing else holds filters.
 */
final class SubscriptionRegistry {
  /** A match of one event on one connection: the sub ids that want it now. */
  record Match(long connId, List<String> live) {}

  /**
   * One connection's subscriptions; {@code matchedIn}/{@code slot}: the last match that found one of
   * them, and where its {@link Match} is in that match's answer (a match allocates no map or set).
   */
  static final class ConnSubs {
    final long connId;
    final Map<String, Subscription> subs = new LinkedHashMap<>();
    long matchedIn;
    int slot;

    ConnSubs(long connId) {
      this.connId = connId;
    }
  }

  private final Map<Long, ConnSubs> byConn = new HashMap<>();
  /** Numbers each {@link #match}: a subscription or connection marked with the current one was seen. */
  private long matches;
  private final Map<Long, String> tenantOf = new HashMap<>();
  private final Map<String, FilterIndex> indexes = new HashMap<>();

  /** Adds or replaces (same sub id) a subscription; returns the number of subs added (0 or 1). */
  int put(String tenant, long connId, Subscription sub) {
    ConnSubs conn = byConn.computeIfAbsent(connId, ConnSubs::new);
    tenantOf.put(connId, tenant);
    FilterIndex index = indexes.computeIfAbsent(tenant, t -> new FilterIndex());
    sub.owner = conn;
    sub.alone = new Match(connId, sub.self);
    Subscription old = conn.subs.put(sub.subId, sub);
    if (old != null) {
      index.remove(connId, old);
    }
    index.add(connId, sub);
    return old == null ? 1 : 0;
  }

  Subscription get(long connId, String subId) {
    ConnSubs conn = byConn.get(connId);
    return conn == null ? null : conn.subs.get(subId);
  }

  /** Removes one subscription; returns 1 when it existed. */
  int remove(long connId, String subId) {
    ConnSubs conn = byConn.get(connId);
    Subscription sub = conn == null ? null : conn.subs.remove(subId);
    if (sub == null) {
      return 0;
    }
    indexes.get(tenantOf.get(connId)).remove(connId, sub);
    if (conn.subs.isEmpty()) {
      byConn.remove(connId);
      tenantOf.remove(connId);
    }
    return 1;
  }

  /** Removes every subscription of a connection; returns how many there were. */
  int removeConn(long connId) {
    ConnSubs conn = byConn.remove(connId);
    if (conn == null) {
      return 0;
    }
    FilterIndex index = indexes.get(tenantOf.remove(connId));
    for (Subscription sub : conn.subs.values()) {
      index.remove(connId, sub);
    }
    return conn.subs.size();
  }

  /** The answer of {@link #match}, reused: no list grown from empty per event. */
  private final ArrayList<Match> scratch = new ArrayList<>();

  /**
   * Matches one event against the live filters of its tenant; the answer is valid until the next call
   * (the caller copies what it keeps). Subscriptions still waiting for their
   * history answer get the event held (or, when they hold too many, are returned in
   * {@code overflowed}). Each subscription gets the event at most once, whichever filters matched.
   */
  List<Match> match(String tenant, NostrEvent event, long seq, byte[] eventJson,
      List<Map.Entry<Long, String>> overflowed) {
    FilterIndex index = indexes.get(tenant);
    if (index == null || index.size() == 0) {
      return List.of();
    }
    long stamp = ++matches;
    List<Match> out = scratch;
    out.clear();
    index.candidates(event, e -> {
      Subscription sub = e.sub();
      if ((seq != 0 && seq < sub.seqFloor) || sub.matchedIn == stamp) {
        return; // before the floor: covered by this subscription's history query; or matched already
      }
      sub.matchedIn = stamp;
      if (!sub.historyDone) {
        if (!sub.hold(eventJson)) {
          overflowed.add(Map.entry(e.connId(), sub.subId));
        }
        return;
      }
      ConnSubs conn = sub.owner;
      if (conn.matchedIn != stamp) {
        conn.matchedIn = stamp;
        conn.slot = out.size();
        out.add(sub.alone);
      } else { // a second subscription of the same connection (rare): one Match names both
        List<String> live = new ArrayList<>(out.get(conn.slot).live());
        live.add(sub.subId);
        out.set(conn.slot, new Match(conn.connId, live));
      }
    });
    return out;
  }
}
