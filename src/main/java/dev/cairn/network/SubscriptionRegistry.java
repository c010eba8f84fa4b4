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
  /** A match of one event on one connection: the sub ids that want it now, and those still in history. */
  record Match(long connId, List<String> live) {}

  private final Map<Long, Map<String, Subscription>> byConn = new HashMap<>();
  private final Map<String, Map<Long, Map<String, Subscription>>> byTenant = new HashMap<>();
  private final Map<Long, String> tenantOf = new HashMap<>();

  /** Adds or replaces (same sub id) a subscription; returns the number of subs of the tenant added (0 or 1). */
  int put(String tenant, long connId, Subscription sub) {
    Map<String, Subscription> subs = byConn.computeIfAbsent(connId, c -> new LinkedHashMap<>());
    if (subs.isEmpty()) {
      byTenant.computeIfAbsent(tenant, t -> new HashMap<>()).put(connId, subs);
      tenantOf.put(connId, tenant);
    }
    return subs.put(sub.subId, sub) == null ? 1 : 0;
  }

  Subscription get(long connId, String subId) {
    Map<String, Subscription> subs = byConn.get(connId);
    return subs == null ? null : subs.get(subId);
  }

  /** Removes one subscription; returns 1 when it existed. */
  int remove(long connId, String subId) {
    Map<String, Subscription> subs = byConn.get(connId);
    if (subs == null || subs.remove(subId) == null) {
      return 0;
    }
    if (subs.isEmpty()) {
      dropConn(connId);
    }
    return 1;
  }

  /** Removes every subscription of a connection; returns how many there were. */
  int removeConn(long connId) {
    Map<String, Subscription> subs = byConn.get(connId);
    if (subs == null) {
      return 0;
    }
    int n = subs.size();
    dropConn(connId);
    return n;
  }

  private void dropConn(long connId) {
    byConn.remove(connId);
    String tenant = tenantOf.remove(connId);
    Map<Long, Map<String, Subscription>> conns = byTenant.get(tenant);
    if (conns != null) {
      conns.remove(connId);
    }
  }

  /**
   * Matches one event against every subscription of its tenant. Subscriptions still waiting for
   * their history answer get the event held (or are returned in {@code overflowed}).
   */
  List<Match> match(String tenant, NostrEvent event, long seq, String eventJson,
      List<Map.Entry<Long, String>> overflowed) {
    Map<Long, Map<String, Subscription>> conns = byTenant.get(tenant);
    if (conns == null || conns.isEmpty()) {
      return List.of();
    }
    List<Match> out = new ArrayList<>();
    for (Map.Entry<Long, Map<String, Subscription>> e : conns.entrySet()) {
      List<String> live = null;
      for (Subscription sub : e.getValue().values()) {
        if (!sub.wants(event, seq)) {
          continue;
        }
        if (!sub.historyDone) {
          if (!sub.hold(eventJson)) {
            overflowed.add(Map.entry(e.getKey(), sub.subId));
          }
          continue;
        }
        if (live == null) {
          live = new ArrayList<>(2);
        }
        live.add(sub.subId);
      }
      if (live != null) {
        out.add(new Match(e.getKey(), live));
      }
    }
    return out;
  }

}
