package dev.cairn.network;

import dev.cairn.bench.jmh.Fixtures;
import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * network-manager's matcher: SubscriptionRegistry.match of ONE event against N registered
 * subscriptions (1k / 10k / 100k; 4 per connection), all past EOSE. It lives in the relay's package
 * because the registry is package-private. The filters are a client-like mix: 55% follow feeds
 * (kinds 1,7 + 5-50 authors), 20% hashtag feeds (kind 1 + #t), 15% notifications (#p of one user),
 * 5% thread views (#e), 5% broad (kinds 1,7). One operation = one event matched against all of them.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class SubscriptionMatchBench {
  @Param({"1000", "10000", "100000"})
  public int subscriptions;

  private SubscriptionRegistry registry;
  private NostrEvent[] events;
  private int i;
  private long seq = 1_000_000;

  @Setup
  public void setup() {
    List<String> lines = Fixtures.lines(2000, 200, "1:60,7:25,0:3,3:3,30023:9");
    events = Fixtures.parsed(lines).toArray(NostrEvent[]::new);
    List<String> pubkeys = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (NostrEvent e : events) {
      if (!pubkeys.contains(e.pubkey())) pubkeys.add(e.pubkey());
      ids.add(e.id());
    }
    String[] hashtags = {"nostr", "bitcoin", "zap", "photography", "art", "music", "dev", "java", "gm", "news"};
    Random rnd = new Random(5);
    registry = new SubscriptionRegistry();
    for (int s = 0; s < subscriptions; s++) {
      int roll = rnd.nextInt(100);
      Filter f;
      if (roll < 55) {
        int n = 5 + rnd.nextInt(46);
        java.util.Set<String> authors = new java.util.HashSet<>();
        for (int k = 0; k < n; k++) authors.add(pubkeys.get(rnd.nextInt(pubkeys.size())));
        f = new Filter(null, authors, Set.of(1, 7), null, null, null, null, null);
      } else if (roll < 75) {
        f = new Filter(null, null, Set.of(1), Map.of('t', Set.of(hashtags[rnd.nextInt(hashtags.length)])),
            null, null, null, null);
      } else if (roll < 90) {
        f = new Filter(null, null, null, Map.of('p', Set.of(pubkeys.get(rnd.nextInt(pubkeys.size())))),
            null, null, null, null);
      } else if (roll < 95) {
        f = new Filter(null, null, null, Map.of('e', Set.of(ids.get(rnd.nextInt(ids.size())))),
            null, null, null, null);
      } else {
        f = new Filter(null, null, Set.of(1, 7), null, null, null, null, null);
      }
      Subscription sub = new Subscription("s" + s, s, List.of(f), 0);
      sub.historyDone = true;
      registry.put("default", s / 4, sub);
    }
  }

  @Benchmark
  public List<SubscriptionRegistry.Match> matchOneEvent() {
    NostrEvent e = events[i];
    i = i + 1 == events.length ? 0 : i + 1;
    return registry.match("default", e, ++seq, e.json(), new ArrayList<>());
  }
}
