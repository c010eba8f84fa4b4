package dev.cairn.feed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.store.feed.FeedChange;
import dev.cairn.store.feed.RetryBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The retry buffer's rules (seed 003, item 3), on a fake clock. */
class RetryBufferTest {
  private static final long HOUR = 3_600_000;
  private final Map<String, Integer> drops = new TreeMap<>();

  private RetryBuffer buffer(int global, int tenant, int flushers) {
    return new RetryBuffer(global, tenant, flushers, HOUR, (t, reason, n) -> drops.merge(t + "/" + reason, n, Integer::sum));
  }

  private static List<FeedChange> changes(String prefix, int n) {
    List<FeedChange> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new FeedChange(i, FeedChange.STORED, prefix + i, 1, "pk", null, i + 1));
    }
    return out;
  }

  private static List<String> ids(RetryBuffer.Flush f) {
    return f.changes().stream().map(FeedChange::eventId).toList();
  }

  @Test
  void perTenantCapThenGlobalCapDropTheOldest() {
    RetryBuffer b = buffer(5, 3, 8);
    b.enqueue("a", changes("a", 5), 0);
    assertEquals(Map.of("a/tenant_cap", 2), drops);
    assertEquals(3, b.depth());
    b.enqueue("b", changes("b", 3), 1);
    assertEquals(Map.of("a/tenant_cap", 2, "a/global_cap", 1), drops, "the oldest entry overall was a's");
    assertEquals(5, b.depth());
    List<RetryBuffer.Flush> due = b.takeDue(10_000);
    assertEquals(List.of("a3", "a4"), ids(due.get(0)), "a0..a2 were dropped, oldest first");
    assertEquals(List.of("b0", "b1", "b2"), ids(due.get(1)));
  }

  @Test
  void inFlightEntriesCountAgainstTheCapsAndAreSkippedByEviction() {
    RetryBuffer b = buffer(100, 3, 8);
    b.enqueue("a", changes("x", 2), 0);
    RetryBuffer.Flush inFlight = b.takeDue(1_000).get(0);
    assertEquals(List.of("x0", "x1"), ids(inFlight));
    b.enqueue("a", changes("y", 1), 1_000);
    assertEquals(3, b.depth(), "in-flight entries stay counted");
    b.enqueue("a", changes("z", 1), 1_000); // full: the oldest NOT in flight (y0) goes
    assertEquals(Map.of("a/tenant_cap", 1), drops);
    assertEquals(3, b.depth());
    assertTrue(b.takeDue(50_000).isEmpty(), "one flusher per tenant");
    b.failed(inFlight, 1_000);
    RetryBuffer.Flush again = b.takeDue(3_000).get(0);
    assertEquals(List.of("x0", "x1", "z0"), ids(again), "failed entries keep their place at the head");
    b.succeeded(again);
    assertEquals(0, b.depth());
  }

  @Test
  void perEntryBackoffDoublesFromOneSecondToFiveMinutes() {
    RetryBuffer b = buffer(100, 100, 8);
    b.enqueue("a", changes("a", 1), 0);
    assertTrue(b.takeDue(999).isEmpty());
    long now = 1_000;
    long expected = 2_000;
    for (int attempt = 1; attempt <= 12; attempt++) {
      RetryBuffer.Flush f = b.takeDue(now).get(0);
      b.failed(f, now);
      assertEquals(now + Math.min(expected, 300_000), b.nextDueAt(), "attempt " + attempt);
      assertTrue(b.takeDue(b.nextDueAt() - 1).isEmpty());
      now = b.nextDueAt();
      expected *= 2;
    }
  }

  @Test
  void atMostEightTenantsFlushAtOnceEachInFifoOrder() {
    RetryBuffer b = buffer(1000, 100, 8);
    for (int t = 0; t < 10; t++) {
      b.enqueue("t" + t, changes("t" + t + "-", 3), t);
    }
    List<RetryBuffer.Flush> first = b.takeDue(5_000);
    assertEquals(8, first.size());
    assertTrue(b.takeDue(5_000).isEmpty());
    b.succeeded(first.get(0));
    List<RetryBuffer.Flush> next = b.takeDue(5_000);
    assertEquals(1, next.size());
    assertEquals(List.of("t8-0", "t8-1", "t8-2"), ids(next.get(0)));
  }

  @Test
  void expiredStoppedShutdownAndTenantGoneAreCountedPerTenant() {
    RetryBuffer b = buffer(1000, 100, 8);
    b.enqueue("old", changes("o", 2), 0);
    b.enqueue("gone", changes("g", 1), HOUR / 2);
    b.enqueue("late", changes("l", 4), HOUR / 2);
    assertEquals(2, b.takeDue(HOUR).size(), "old is past the max age; gone and late are due");
    b.dropTenant("gone", RetryBuffer.TENANT_GONE);
    b.stop();
    b.enqueue("late", changes("m", 1), HOUR);
    b.dropAll(RetryBuffer.SHUTDOWN);
    assertEquals(Map.of("old/expired", 2, "gone/tenant_gone", 1, "late/stopped", 1, "late/shutdown", 4), drops);
    assertEquals(0, b.depth());
  }
}
