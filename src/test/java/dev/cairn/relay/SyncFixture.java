package dev.cairn.relay;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.nostr.negentropy.NegentropyHex;
import dev.cairn.nostr.negentropy.VectorStorage;
import dev.cairn.store.SqliteTenantStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Large NIP-77 fixtures: a tenant DB seeded with {@code n} signed notes straight through the store (as
 * an import would, without the network), and a client set that differs from it by a given number of
 * items on each side.
 */
final class SyncFixture {
  final List<NostrEvent> stored;
  final VectorStorage client;
  final Set<String> relayOnly = new HashSet<>();
  final Set<String> clientOnly = new HashSet<>();

  private SyncFixture(List<NostrEvent> stored, VectorStorage client) {
    this.stored = stored;
    this.client = client;
  }

  /**
   * Seeds {@code dataDir}'s default tenant with {@code n} notes over a year of created_at values; the
   * client holds all but {@code diff} of them plus {@code diff} ids of its own.
   */
  static SyncFixture seed(Path dataDir, int n, int diff, long seed) {
    return seed(dataDir, n, diff, seed, false);
  }

  /**
   * As {@link #seed(Path, int, int, long)}; {@code recent}: the differing items are the newest ones (a
   * client catching up) rather than spread evenly over the year (every range differs: the worst case).
   */
  static SyncFixture seed(Path dataDir, int n, int diff, long seed, boolean recent) {
    Random rnd = new Random(seed);
    EventSigner[] authors = {EventSigner.random(), EventSigner.random(), EventSigner.random()};
    long now = System.currentTimeMillis() / 1000;
    List<NostrEvent> events = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      events.add(authors[i % authors.length].sign(now - 365L * 86400 + rnd.nextInt(365 * 86400), 1, List.of(),
          "note " + i + " " + rnd.nextLong()));
    }
    try (SqliteTenantStore s = SqliteTenantStore.open(dataDir.resolve("tenants").resolve("default.db"), 1)) {
      for (int from = 0; from < n; from += 5000) {
        s.persist(events.subList(from, Math.min(n, from + 5000)), now);
      }
    }
    VectorStorage.Builder b = VectorStorage.builder(n);
    SyncFixture f = new SyncFixture(events, null);
    // every (n / diff)-th stored event (or the diff newest) is missing on the client, as many ids only there
    int step = diff == 0 ? Integer.MAX_VALUE : n / diff;
    long newestCut = recent && diff > 0
        ? events.stream().mapToLong(NostrEvent::createdAt).sorted().skip(n - diff).findFirst().orElse(0) : 0;
    for (int i = 0; i < n; i++) {
      NostrEvent e = events.get(i);
      boolean differs = recent ? e.createdAt() >= newestCut : i % step == 0;
      if (differs && f.relayOnly.size() < diff) {
        f.relayOnly.add(e.id());
        byte[] id = new byte[32];
        rnd.nextBytes(id);
        f.clientOnly.add(NegentropyHex.encode(id));
        b.add(e.createdAt(), id);
      } else {
        b.add(e.createdAt(), e.id());
      }
    }
    return new SyncFixture(events, b.build()).with(f);
  }

  private SyncFixture with(SyncFixture ids) {
    relayOnly.addAll(ids.relayOnly);
    clientOnly.addAll(ids.clientOnly);
    return this;
  }
}
