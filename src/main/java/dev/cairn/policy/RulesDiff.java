package dev.cairn.policy;

import dev.cairn.config.PolicyConfig.TenantPolicy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/** What changed between two versions of a tenant's rules, for the reload log: "block_pubkeys +2 -1", ... */
final class RulesDiff {
  private RulesDiff() {}

  static List<String> describe(TenantPolicy a, TenantPolicy b) {
    List<String> out = new ArrayList<>();
    if (a == null) {
      out.add("rules installed");
      return out;
    }
    list(out, "allow_pubkeys", a.allowPubkeys(), b.allowPubkeys());
    list(out, "block_pubkeys", a.blockPubkeys(), b.blockPubkeys());
    list(out, "block_event_ids", a.blockEventIds(), b.blockEventIds());
    list(out, "block_words", a.blockWords(), b.blockWords());
    list(out, "block_regexes", a.blockRegexSources(), b.blockRegexSources());
    list(out, "mute_pubkeys", a.mutePubkeys(), b.mutePubkeys());
    value(out, "writes_per_second", a.writesPerSecond(), b.writesPerSecond());
    value(out, "max_queries_in_flight", a.maxQueriesInFlight(), b.maxQueriesInFlight());
    value(out, "duplicate_content", a.duplicateContent(), b.duplicateContent());
    value(out, "rate.events_per_ip", a.eventsPerIp(), b.eventsPerIp());
    value(out, "rate.events_per_pubkey", a.eventsPerPubkey(), b.eventsPerPubkey());
    value(out, "rate.reqs_per_ip", a.reqsPerIp(), b.reqsPerIp());
    value(out, "rate.connections_per_ip", a.connectionsPerIp(), b.connectionsPerIp());
    value(out, "plugin", a.plugin(), b.plugin());
    value(out, "java_policies", a.javaPolicies(), b.javaPolicies());
    return out;
  }

  private static void list(List<String> out, String key, Collection<String> a, Collection<String> b) {
    Set<String> added = new HashSet<>(b);
    added.removeAll(a);
    Set<String> removed = new HashSet<>(a);
    removed.removeAll(b);
    if (!added.isEmpty() || !removed.isEmpty()) {
      out.add(key + " +" + added.size() + " -" + removed.size());
    }
  }

  private static void value(List<String> out, String key, Object a, Object b) {
    if (!Objects.equals(a, b)) {
      out.add(key + " " + a + " -> " + b);
    }
  }
}
