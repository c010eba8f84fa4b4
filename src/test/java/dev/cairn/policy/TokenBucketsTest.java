package dev.cairn.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TokenBucketsTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void burstThenRefillAtTheRate() {
    TokenBuckets b = new TokenBuckets(2, 3);
    long t = 1_000 * SECOND;
    assertTrue(b.tryAcquire("k", t));
    assertTrue(b.tryAcquire("k", t));
    assertTrue(b.tryAcquire("k", t));
    assertFalse(b.tryAcquire("k", t), "burst spent");
    assertFalse(b.tryAcquire("k", t + SECOND / 4), "half a token after 250 ms at 2/s");
    assertTrue(b.tryAcquire("k", t + SECOND / 2 + 1), "one token after 500 ms at 2/s");
    assertFalse(b.tryAcquire("k", t + SECOND / 2 + 2));
  }

  @Test
  void refillIsCappedAtTheBurst() {
    TokenBuckets b = new TokenBuckets(10, 2);
    long t = 0;
    assertTrue(b.tryAcquire("k", t));
    assertTrue(b.tryAcquire("k", t));
    long later = t + 3600 * SECOND;
    assertTrue(b.tryAcquire("k", later));
    assertTrue(b.tryAcquire("k", later));
    assertFalse(b.tryAcquire("k", later), "an idle hour saves no more than the burst");
  }

  @Test
  void keysAreIndependent() {
    TokenBuckets b = new TokenBuckets(1, 1);
    assertTrue(b.tryAcquire("a", 0));
    assertFalse(b.tryAcquire("a", 0));
    assertTrue(b.tryAcquire("b", 0));
  }

  @Test
  void memoryIsBoundedLeastRecentlyUsedFirst() {
    TokenBuckets b = new TokenBuckets(0.001, 1, 3);
    assertTrue(b.tryAcquire("a", 0));
    assertTrue(b.tryAcquire("b", 0));
    assertTrue(b.tryAcquire("c", 0));
    assertFalse(b.tryAcquire("a", 1), "a is still limited and now the most recent");
    assertTrue(b.tryAcquire("d", 2), "a fourth key evicts the least recently used (b)");
    assertEquals(3, b.size());
    assertFalse(b.tryAcquire("a", 3), "a was kept");
    assertTrue(b.tryAcquire("b", 4), "b was forgotten: a fresh bucket");
  }
}
