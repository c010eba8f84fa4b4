package dev.cairn.nostr.negentropy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Not a timed assertion: prints how long a 100k-item reconciliation with 1% difference takes on
 * this machine (storage build excluded, then included), for the record. Output lands in
 * target/surefire-reports/dev.cairn.nostr.negentropy.NegentropyBenchmarkTest-output.txt. Another
 * size: {@code -Dnegentropy.bench.items=1000000}.
 */
class NegentropyBenchmarkTest {

  @Test
  void reconcile100kItemsWithOnePercentDifference() throws Exception {
    int count = Integer.getInteger("negentropy.bench.items", 100_000);
    List<List<Item>> sides = TestSets.split(42, count, 1_700_000_000L, 30 * 86_400, 5, 5);
    for (int run = 1; run <= 5; run++) {
      long t0 = System.nanoTime();
      VectorStorage clientStorage = TestSets.storage(sides.get(0));
      VectorStorage serverStorage = TestSets.storage(sides.get(1));
      long t1 = System.nanoTime();
      for (long limit : new long[] {0, 60_000}) {
        long t2 = System.nanoTime();
        TestSets.Outcome outcome =
            TestSets.sync(
                Negentropy.client(clientStorage, limit),
                Negentropy.server(serverStorage, limit),
                100_000);
        long t3 = System.nanoTime();
        System.out.printf(
            "run %d, frameSizeLimit %d: %d+%d items, have %d, need %d, %d rounds, %d B up,"
                + " %d B down: reconcile %.1f ms (storage build %.1f ms)%n",
            run,
            limit,
            clientStorage.size(),
            serverStorage.size(),
            outcome.have().size(),
            outcome.need().size(),
            outcome.rounds(),
            outcome.bytesUp(),
            outcome.bytesDown(),
            (t3 - t2) / 1e6,
            (t1 - t0) / 1e6);
        assertEquals(expectedDifference(sides), outcome.have().size() + outcome.need().size());
      }
    }
  }

  private static int expectedDifference(List<List<Item>> sides) {
    var client = TestSets.hexIds(sides.get(0));
    var server = TestSets.hexIds(sides.get(1));
    int diff = 0;
    for (String id : client) {
      diff += server.contains(id) ? 0 : 1;
    }
    for (String id : server) {
      diff += client.contains(id) ? 0 : 1;
    }
    return diff;
  }
}
