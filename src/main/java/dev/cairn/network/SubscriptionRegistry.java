package dev.cairn.network;

import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * THE subscription registry: conn -> sub -> filters, per tenant, and the only matcher. Owned by
 * network-manager alone (single-threaded); nothing else holds filters.
 */
final class SubscriptionRegistry {
  /** A match of one event on one connection: the sub ids that want it now. */
  record Match(long connId, List<String> live) {}

  private final Map<Long, Map<String, Subscription>> byConn = new HashMap<>();
  private final Map<Long, String> tenantOf = new HashMap<>();
  private final Map<String, FilterIndex> indexes = new HashMap<>();

  /** Adds or replaces (same sub id) a subscription; returns the number of subs added (0 or 1). */
  int put(String tenant, long connId, Subscription sub) {
    Map<String, Subscription> subs = byConn.computeIfAbsent(connId, c -> new LinkedHashMap<>());
    tenantOf.put(connId, tenant);
    FilterIndex index = indexes.computeIfAbsent(tenant, t -> new FilterIndex());
    Subscription old = subs.put(sub.subId, sub);
    if (old != null) {
      index.remove(connId, old);
    }
    index.add(connId, sub);
    return old == null ? 1 : 0;
  }

  Subscription get(long connId, String subId) {
    Map<String, Subscription> subs = byConn.get(connId);
    return subs == null ? null : subs.get(subId);
  }

  /** Removes one subscription; returns 1 when it existed. */
  int remove(long connId, String subId) {
    Map<String, Subscription> subs = byConn.get(connId);
    Subscription sub = subs == null ? null : subs.remove(subId);
    if (sub == null) {
      return 0;
    }
    indexes.get(tenantOf.get(connId)).remove(connId, sub);
    if (subs.isEmpty()) {
      byConn.remove(connId);
      tenantOf.remove(connId);
    }
    return 1;
  }

  /** Removes every subscription of a connection; returns how many there were. */
  int removeConn(long connId) {
    Map<String, Subscription> subs = byConn.remove(connId);
    if (subs == null) {
      return 0;
    }
    FilterIndex index = indexes.get(tenantOf.remove(connId));
    for (Subscription sub : subs.values()) {
      index.remove(connId, sub);
    }
    return subs.size();
  }

  /**
   * Matches one event against the live filters of its tenant. Subscriptions still waiting for their
   * history answer get the event held (or, when they hold too many, are returned in
   * {@code overflowed}). Each subscription gets the event at most once, whichever filters matched.
   */
  List<Match> match(String tenant, NostrEvent event, long seq, byte[] eventJson,
      List<Map.Entry<Long, String>> overflowed) {
    FilterIndex index = indexes.get(tenant);
    if (index == null || index.size() == 0) {
      return List.of();
    }
    Map<Long, List<String>> live = new LinkedHashMap<>();
    Set<Subscription> seen = new HashSet<>();
    index.candidates(event, e -> {
      Subscription sub = e.sub();
      if ((seq != 0 && seq < sub.seqFloor) || !seen.add(sub)) {
        return; // before the floor: covered by this subscription's history query
      }
      if (!sub.historyDone) {
        if (!sub.hold(eventJson)) {
          overflowed.add(Map.entry(e.connId(), sub.subId));
        }
        return;
      }
      live.computeIfAbsent(e.connId(), c -> new ArrayList<>(2)).add(sub.subId);
    });
    if (live.isEmpty()) {
      return List.of();
    }
    List<Match> out = new ArrayList<>(live.size());
    live.forEach((conn, subIds) -> out.add(new Match(conn, subIds)));
    return out;
  }
}
