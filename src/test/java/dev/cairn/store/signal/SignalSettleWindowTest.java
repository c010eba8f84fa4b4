package dev.cairn.store.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The poller's position rules without a database: late lower ids, dedupe, the settled floor. */
class SignalSettleWindowTest {
  private static final long SETTLE = 1_000;

  @Test
  void holdsTheFloorBehindRecentIdsAndTakesALateLowerOne() {
    SettleWindow w = new SettleWindow(10);
    assertTrue(w.offer(12, 0));
    assertTrue(w.hasGaps(), "11 not seen: it may still commit");
    assertFalse(w.offer(12, 100), "seen once, woken once");
    w.settle(500, SETTLE);
    assertEquals(10, w.floor(), "12 is too recent to move past 11");
    assertTrue(w.offer(11, 600), "11 committed late: still taken");
    assertFalse(w.hasGaps());
    w.settle(1_000, SETTLE);
    assertEquals(12, w.floor(), "12 settled: 11 below it was seen later, no matter");
    assertEquals(0, w.size());
    assertFalse(w.offer(11, 2_000), "at or below the floor: never again");
    assertFalse(w.offer(12, 2_000));
  }

  @Test
  void aSettledHigherIdAbandonsAGapBelowIt() {
    SettleWindow w = new SettleWindow(0);
    w.offer(2, 0);
    w.offer(5, 800);
    w.settle(1_000, SETTLE);
    assertEquals(2, w.floor(), "1 can no longer commit once 2 settled; 3, 4 are still awaited");
    assertTrue(w.hasGaps());
    w.settle(1_800, SETTLE);
    assertEquals(5, w.floor());
    assertFalse(w.hasGaps());
    assertEquals(5, w.high());
  }
}
