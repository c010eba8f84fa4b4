package dev.cairn.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The indexed matcher gives exactly what checking every filter of every subscription gives. */
class SubscriptionRegistryTest {
  private static final String[] PUBKEYS = {hex('a'), hex('b'), hex('c'), hex('d')};
  private static final String[] TAGS = {"nostr", "cairn", "java", "relay"};
  private final Random random = new Random(42);

  private static String hex(char c) {
    return String.valueOf(c).repeat(64);
  }

  private NostrEvent event(int n) {
    String pubkey = PUBKEYS[random.nextInt(PUBKEYS.length)];
    List<List<String>> tags = new ArrayList<>();
    for (int i = 0; i < random.nextInt(3); i++) {
      tags.add(List.of(random.nextBoolean() ? "t" : "p", random.nextBoolean() ? TAGS[random.nextInt(TAGS.length)]
          : PUBKEYS[random.nextInt(PUBKEYS.length)]));
    }
    String id = String.format("%064x", n);
    return NostrEvent.of(id, pubkey, 1000 + random.nextInt(100), random.nextInt(4), tags, "", "0".repeat(128));
  }

  private Filter filter(List<String> someIds) {
    Set<String> ids = random.nextInt(6) == 0 ? Set.of(someIds.get(random.nextInt(someIds.size()))) : null;
    Set<String> authors = random.nextInt(3) == 0 ? Set.of(PUBKEYS[random.nextInt(PUBKEYS.length)]) : null;
    Set<Integer> kinds = random.nextInt(2) == 0 ? new HashSet<>(List.of(random.nextInt(4), random.nextInt(4))) : null;
    Map<Character, Set<String>> tags = new HashMap<>();
    if (random.nextInt(3) == 0) {
      tags.put('t', new HashSet<>(List.of(TAGS[random.nextInt(TAGS.length)], TAGS[random.nextInt(TAGS.length)])));
    }
    if (random.nextInt(4) == 0) {
      tags.put('p', Set.of(PUBKEYS[random.nextInt(PUBKEYS.length)]));
    }
    Long since = random.nextInt(4) == 0 ? 1000L + random.nextInt(100) : null;
    return new Filter(ids, authors, kinds, tags, since, null, null, null);
  }

  @Test
  void indexedMatchEqualsBruteForce() {
    List<NostrEvent> events = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      events.add(event(i));
    }
    List<String> ids = events.stream().map(NostrEvent::id).toList();
    SubscriptionRegistry registry = new SubscriptionRegistry();
    Map<String, List<Filter>> all = new HashMap<>(); // "conn/sub" -> filters
    for (long conn = 1; conn <= 40; conn++) {
      for (int s = 0; s < 5; s++) {
        List<Filter> filters = new ArrayList<>();
        for (int f = 0; f <= random.nextInt(3); f++) {
          filters.add(filter(ids));
        }
        Subscription sub = new Subscription("s" + s, conn * 10 + s, filters, 0);
        sub.historyDone = true;
        registry.put("default", conn, sub);
        all.put(conn + "/s" + s, filters);
      }
      // replace one subscription and close another: the index must forget the old filters
      Subscription replaced = new Subscription("s0", conn * 10 + 9, List.of(filter(ids)), 0);
      replaced.historyDone = true;
      registry.put("default", conn, replaced);
      all.put(conn + "/s0", replaced.filters);
      registry.remove(conn, "s1");
      all.remove(conn + "/s1");
    }
    int matched = 0;
    for (NostrEvent e : events) {
      Set<String> expected = new TreeSet<>();
      all.forEach((key, filters) -> {
        if (filters.stream().anyMatch(f -> f.matches(e))) {
          expected.add(key);
        }
      });
      Set<String> got = new TreeSet<>();
      List<String> dupes = new ArrayList<>();
      for (SubscriptionRegistry.Match m : registry.match("default", e, 5, e.json(), new ArrayList<>())) {
        for (String sub : m.live()) {
          if (!got.add(m.connId() + "/" + sub)) {
            dupes.add(sub);
          }
        }
      }
      assertEquals(expected, got, "event " + e.id());
      assertTrue(dupes.isEmpty(), "a subscription got the event twice");
      matched += got.size();
    }
    assertTrue(matched > 100, "the random filters matched something: " + matched);
  }

  @Test
  void eventsBelowTheFloorAreNotLiveAndPendingHistoryHoldsThem() {
    SubscriptionRegistry registry = new SubscriptionRegistry();
    Filter any = new Filter(null, null, Set.of(1), Map.of(), null, null, null, null);
    Subscription sub = new Subscription("s", 1, List.of(any), 10);
    registry.put("default", 7, sub);
    NostrEvent e = NostrEvent.of(hex('e'), hex('a'), 1, 1, List.of(), "", "0".repeat(128));
    assertTrue(registry.match("default", e, 9, e.json(), new ArrayList<>()).isEmpty(), "below the floor");
    assertTrue(registry.match("default", e, 10, e.json(), new ArrayList<>()).isEmpty(), "held until EOSE");
    assertEquals(List.of(e.json()), sub.heldLive);
    sub.historyDone = true;
    assertEquals(1, registry.match("default", e, 11, e.json(), new ArrayList<>()).size());
    assertEquals(1, registry.match("default", e, 0, e.json(), new ArrayList<>()).size(), "ephemeral skips the floor");
    assertTrue(registry.match("other", e, 12, e.json(), new ArrayList<>()).isEmpty(), "tenants are separate");
    assertEquals(1, registry.removeConn(7));
    assertTrue(registry.match("default", e, 13, e.json(), new ArrayList<>()).isEmpty());
  }
}
