package dev.cairn.relay;

import dev.cairn.nostr.FilterParser;
import dev.cairn.nostr.negentropy.VectorStorage;
import dev.cairn.store.SqliteTenantStore;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Measures a NIP-77 sync over WebSocket (docs/benchmarks.md): the relay holds N events (seeded through
 * the store), the client N items of which 1% differ (N/100 only on each side). Prints the time of each
 * sync, from NEG-OPEN to the client's last reconcile, with the Java client and, when
 * {@code interop/nip77} is installed, with nostr-tools' client. Not a test: run it by hand.
 *
 * <pre>
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 * java -cp target/test-classes:target/classes:$(cat /tmp/cp.txt) dev.cairn.relay.NegentropySyncBench 100000 5 [recent]
 * </pre>
 */
public final class NegentropySyncBench {
  private NegentropySyncBench() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    boolean recent = args.length > 2 && args[2].equals("recent");
    Path dir = Files.createTempDirectory("cairn-neg-bench");
    long t0 = System.nanoTime();
    SyncFixture f = SyncFixture.seed(dir, n, n / 100, 1, recent);
    System.out.printf("seeded %d events in %.1f s; the %d differing items on each side are %s%n", n,
        (System.nanoTime() - t0) / 1e9, n / 100, recent ? "the newest" : "spread evenly");
    readAlone(dir);
    try (TestRelay relay = TestRelay.startOn(dir, new JsonObject())) {
      waitForOutbox(relay);
      List<Double> times = new ArrayList<>();
      try (RelayClient c = relay.connect()) {
        for (int i = 0; i <= runs; i++) {
          long s = System.nanoTime();
          NegentropySync.Result r = NegentropySync.run(c, "bench" + i, new JsonObject(), f.client, 60_000,
              Duration.ofSeconds(60));
          double ms = (System.nanoTime() - s) / 1e6;
          if (r.error() != null || !r.have().equals(f.clientOnly) || !r.need().equals(f.relayOnly)) {
            throw new AssertionError("wrong sync: " + r.error() + " have " + r.have().size() + " need "
                + r.need().size());
          }
          System.out.printf("%s java client: %.1f ms (first reply, with the read: %.1f ms), %d rounds, have %d,"
              + " need %d%n", i == 0 ? "warm-up" : "run", ms, r.firstReplyNanos() / 1e6, r.rounds(), r.have().size(),
              r.need().size());
          if (i > 0) {
            times.add(ms);
          }
        }
      }
      Collections.sort(times);
      System.out.printf("java client: median %.1f ms, min %.1f ms over %d runs%n", times.get(times.size() / 2),
          times.get(0), times.size());
      nostrTools(relay, f, dir);
    } finally {
      TestRelay.deleteTree(dir);
    }
  }

  /** The NEG-OPEN read by itself (rows, then the sorted set), on the store, before the relay runs. */
  private static void readAlone(Path dir) throws Exception {
    try (SqliteTenantStore s = SqliteTenantStore.open(dir.resolve("tenants").resolve("default.db"), 1)) {
      for (int i = 0; i < 4; i++) {
        long t = System.nanoTime();
        int n = s.syncItems(FilterParser.parse("{}"), 500_000, System.currentTimeMillis() / 1000).items().size();
        System.out.printf("read alone: %d items in %.1f ms%n", n, (System.nanoTime() - t) / 1e6);
      }
    }
  }

  /** The same sync with nostr-tools' client, when interop/nip77 is installed. */
  private static void nostrTools(TestRelay relay, SyncFixture f, Path dir) throws Exception {
    if (!Files.isDirectory(Path.of("interop", "nip77", "node_modules"))) {
      return;
    }
    JsonArray items = new JsonArray();
    VectorStorage s = f.client;
    byte[] id = new byte[32];
    for (int i = 0; i < s.size(); i++) {
      s.copyId(i, id, 0);
      items.add(new JsonObject().put("id", dev.cairn.nostr.negentropy.NegentropyHex.encode(id))
          .put("created_at", s.timestamp(i)));
    }
    Path input = dir.resolve("input.json");
    Files.writeString(input, new JsonObject().put("filter", new JsonObject()).put("items", items).encode());
    for (int i = 0; i < 3; i++) {
      JsonObject out = NegentropyInteropTest.run(relay.wsUrl(), input);
      System.out.printf("nostr-tools client: %d ms (sync only, node), %d rounds, have %d, need %d, error %s%n",
          out.getLong("ms"), out.getInteger("rounds"), out.getJsonArray("have").size(),
          out.getJsonArray("need").size(), out.getValue("error"));
    }
  }

  private static void waitForOutbox(TestRelay relay) throws InterruptedException {
    // the seeded events' outbox rows (search index, handlers) run right after start: let them settle first
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    while (System.nanoTime() < deadline) {
      String m = relay.metrics();
      if (m.lines().anyMatch(l -> l.startsWith("cairn_outbox_pending") && l.endsWith(" 0.0"))) {
        System.out.println("outbox drained");
        Thread.sleep(2000);
        return;
      }
      Thread.sleep(1000);
    }
    System.out.println("outbox not drained after 5 min; measuring anyway");
  }
}
