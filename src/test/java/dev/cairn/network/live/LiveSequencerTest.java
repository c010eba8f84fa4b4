package dev.cairn.network.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.network.live.LiveSequencer.CatchUp;
import dev.cairn.network.live.LiveSequencer.Stored;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Seq order restored per tenant, each seq released once, gaps read from the store after a bound. */
class LiveSequencerTest {
  private static final long GAP = 100;
  private static final long TIMEOUT = 5_000;

  private static LiveSequencer<String> seq(long highWater) {
    return new LiveSequencer<>(Map.of("t", highWater), 8, GAP, TIMEOUT);
  }

  private static String ev(long s) {
    return "e" + s;
  }

  private static List<Stored<String>> stored(long... seqs) {
    List<Stored<String>> out = new ArrayList<>();
    for (long s : seqs) {
      out.add(new Stored<>(s, ev(s)));
    }
    return out;
  }

  @Test
  void inOrderEventsPassStraightThrough() {
    LiveSequencer<String> s = seq(10);
    assertEquals(List.of("e11"), s.accept("t", 11, ev(11), 0));
    assertEquals(List.of("e12"), s.accept("t", 12, ev(12), 0));
    assertEquals(12, s.highWater("t"));
    assertEquals(Long.MAX_VALUE, s.nextDeadline());
  }

  @Test
  void outOfOrderEventsAreHeldUntilTheGapFills() {
    LiveSequencer<String> s = seq(10);
    assertEquals(List.of(), s.accept("t", 13, ev(13), 0));
    assertEquals(List.of(), s.accept("t", 12, ev(12), 1));
    assertEquals(10, s.highWater("t"), "nothing released: the floor stays below the gap");
    assertEquals(2, s.buffered("t"));
    assertEquals(List.of("e11", "e12", "e13"), s.accept("t", 11, ev(11), 2));
    assertEquals(13, s.highWater("t"));
    assertEquals(0, s.buffered("t"));
    assertEquals(Long.MAX_VALUE, s.nextDeadline(), "no gap left");
  }

  @Test
  void duplicatesAndAlreadyReleasedSeqsAreDropped() {
    LiveSequencer<String> s = seq(10);
    assertEquals(List.of("e11"), s.accept("t", 11, ev(11), 0));
    assertEquals(List.of(), s.accept("t", 11, "again", 0));
    assertEquals(List.of(), s.accept("t", 5, "old", 0));
    assertEquals(List.of(), s.accept("t", 13, ev(13), 0));
    assertEquals(List.of(), s.accept("t", 13, "again", 0));
    assertEquals(List.of("e12", "e13"), s.accept("t", 12, ev(12), 0));
    assertEquals(3, s.dropped());
  }

  @Test
  void aGapOpenPastTheBoundAsksForACatchUpOnce() {
    LiveSequencer<String> s = seq(10);
    s.accept("t", 14, ev(14), 1_000);
    s.accept("t", 15, ev(15), 1_050);
    assertEquals(1_000 + GAP, s.nextDeadline());
    assertEquals(List.of(), s.due(1_099), "not before the bound");
    assertEquals(List.of(new CatchUp("t", 11, 14)), s.due(1_100));
    assertEquals(List.of(), s.due(1_200), "in flight: not asked again");
    assertEquals(1_100 + TIMEOUT, s.nextDeadline(), "asked again only when unanswered past the timeout");
  }

  @Test
  void aCatchUpFillsTheRangeSkipsWhatTheStoreLacksAndAdvances() {
    LiveSequencer<String> s = seq(10);
    s.accept("t", 14, ev(14), 0);
    s.accept("t", 16, ev(16), 0);
    List<CatchUp> due = s.due(GAP);
    assertEquals(List.of(new CatchUp("t", 11, 14)), due);
    // 12 was deleted or replaced since: the store does not have it
    assertEquals(List.of("e11", "e13", "e14"), s.caughtUp("t", 11, 14, stored(11, 13), GAP + 5));
    assertEquals(14, s.highWater("t"));
    // 15 is a new gap with its own clock
    assertEquals(GAP + 5 + GAP, s.nextDeadline());
    assertEquals(List.of(new CatchUp("t", 15, 16)), s.due(GAP + 5 + GAP));
    assertEquals(List.of("e15", "e16"), s.caughtUp("t", 15, 16, stored(15), 300));
    assertEquals(Long.MAX_VALUE, s.nextDeadline());
  }

  @Test
  void aLateEventAfterItsCatchUpIsDroppedAndAnEventDuringOneIsNotLost() {
    LiveSequencer<String> s = seq(10);
    s.accept("t", 13, ev(13), 0);
    assertEquals(List.of(new CatchUp("t", 11, 13)), s.due(GAP));
    // 11 arrives over NATS while the catch-up runs: released now
    assertEquals(List.of("e11"), s.accept("t", 11, ev(11), GAP + 1));
    // the answer still holds 11 and 12: only 12 is new
    assertEquals(List.of("e12", "e13"), s.caughtUp("t", 11, 13, stored(11, 12), GAP + 2));
    // 12 arrives late over NATS: already released
    assertEquals(List.of(), s.accept("t", 12, ev(12), GAP + 3));
    // an old answer repeated releases nothing
    assertEquals(List.of(), s.caughtUp("t", 11, 13, stored(11, 12), GAP + 4));
    assertEquals(13, s.highWater("t"));
  }

  @Test
  void aReadThatHitsItsRowCapAsksForTheRestAtOnce() {
    LiveSequencer<String> s = seq(0);
    s.accept("t", 5000, ev(5000), 0);
    assertEquals(List.of(new CatchUp("t", 1, 5000)), s.due(GAP));
    List<String> first = s.caughtUp("t", 1, 1001, stored(rangeOf(1, 1001)), GAP + 1);
    assertEquals(1000, first.size());
    assertEquals(List.of(new CatchUp("t", 1001, 5000)), s.due(GAP + 1), "the rest is due without waiting");
    List<String> rest = s.caughtUp("t", 1001, 5000, stored(rangeOf(1001, 5000)), GAP + 2);
    assertEquals(4000, rest.size());
    assertEquals("e5000", rest.get(rest.size() - 1));
    assertEquals(5000, s.highWater("t"));
  }

  private static long[] rangeOf(long from, long to) {
    long[] out = new long[(int) (to - from)];
    for (int i = 0; i < out.length; i++) {
      out[i] = from + i;
    }
    return out;
  }

  @Test
  void aFullBufferDropsTheNewcomerAndAsksForACatchUpCoveringItAtOnce() {
    LiveSequencer<String> s = seq(10); // 8 buffered at most
    for (long q = 12; q < 20; q++) {
      s.accept("t", q, ev(q), 0);
    }
    assertEquals(8, s.buffered("t"));
    assertEquals(GAP, s.nextDeadline());
    s.accept("t", 25, ev(25), 1);
    assertEquals(8, s.buffered("t"), "the newcomer is not buffered");
    assertEquals(Long.MIN_VALUE, s.nextDeadline(), "due at once");
    assertEquals(List.of(new CatchUp("t", 11, 26)), s.due(2), "covers the dropped seq");
    List<String> out = s.caughtUp("t", 11, 26, stored(11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 25), 3);
    assertEquals(List.of("e11", "e12", "e13", "e14", "e15", "e16", "e17", "e18", "e19", "e20", "e25"), out);
    assertEquals(25, s.highWater("t"));
    assertEquals(Long.MAX_VALUE, s.nextDeadline());
  }

  @Test
  void anOverflowWhileACatchUpRunsAsksForTheRestAtOnceAndAFailureDoesNotSpin() {
    LiveSequencer<String> s = seq(10); // 8 buffered at most
    s.accept("t", 13, ev(13), 0);
    assertEquals(List.of(new CatchUp("t", 11, 13)), s.due(GAP));
    for (long q = 14; q < 30; q++) {
      s.accept("t", q, ev(q), GAP + 1); // 14..20 buffered with 13, 21..29 dropped
    }
    assertEquals(List.of("e11", "e12", "e13", "e14", "e15", "e16", "e17", "e18", "e19", "e20"),
        s.caughtUp("t", 11, 13, stored(11, 12), GAP + 2));
    assertEquals(Long.MIN_VALUE, s.nextDeadline(), "the dropped ones are read at once");
    assertEquals(List.of(new CatchUp("t", 21, 30)), s.due(GAP + 2));
    s.catchUpFailed("t", GAP + 3);
    assertEquals(GAP + 3 + GAP, s.nextDeadline(), "a failed read waits the gap bound before it is asked again");
  }

  @Test
  void aBeaconAboveTheHighWaterOpensAGapForTheLostTail() {
    LiveSequencer<String> s = seq(10);
    s.observe("t", 10, 0);
    s.observe("t", 5, 0);
    assertEquals(Long.MAX_VALUE, s.nextDeadline(), "nothing missing");
    s.accept("t", 11, ev(11), 0);
    s.observe("t", 13, 50); // 12 and 13 were committed elsewhere; their messages were lost
    assertEquals(50 + GAP, s.nextDeadline());
    assertEquals(List.of(new CatchUp("t", 12, 14)), s.due(50 + GAP));
    assertEquals(List.of("e12", "e13"), s.caughtUp("t", 12, 14, stored(12, 13), 200));
    assertEquals(13, s.highWater("t"));
    assertEquals(Long.MAX_VALUE, s.nextDeadline());
    s.observe("unknown", 5, 0);
    assertEquals(Long.MAX_VALUE, s.nextDeadline(), "a tenant without a lane is not guessed at");
  }

  @Test
  void ephemeralEventsPassStraightThroughAGap() {
    LiveSequencer<String> s = seq(10);
    s.accept("t", 12, ev(12), 0);
    assertEquals(List.of("eph"), s.accept("t", 0, "eph", 0));
    assertEquals(10, s.highWater("t"));
  }

  @Test
  void aFailedCatchUpIsAskedAgainAfterTheBound() {
    LiveSequencer<String> s = seq(10);
    s.accept("t", 12, ev(12), 0);
    assertEquals(1, s.due(GAP).size());
    s.catchUpFailed("t", 500);
    assertEquals(500 + GAP, s.nextDeadline());
    assertEquals(List.of(new CatchUp("t", 11, 12)), s.due(500 + GAP));
  }

  @Test
  void anUnansweredCatchUpIsAskedAgainAfterItsTimeout() {
    LiveSequencer<String> s = seq(10);
    s.accept("t", 12, ev(12), 0);
    assertEquals(1, s.due(GAP).size());
    assertEquals(List.of(), s.due(GAP + TIMEOUT - 1));
    assertEquals(List.of(new CatchUp("t", 11, 12)), s.due(GAP + TIMEOUT));
  }

  @Test
  void tenantsAreIndependent() {
    LiveSequencer<String> s = new LiveSequencer<>(Map.of("a", 0L, "b", 100L), 8, GAP, TIMEOUT);
    assertEquals(List.of(), s.accept("a", 2, "a2", 0));
    assertEquals(List.of("b101"), s.accept("b", 101, "b101", 0));
    assertEquals(List.of(new CatchUp("a", 1, 2)), s.due(GAP));
    // a tenant with no known high water starts where its first event is
    assertEquals(List.of("c7"), s.accept("c", 7, "c7", 0));
    assertEquals(7, s.highWater("c"));
  }

  @Test
  void interleavedLocalAndRemoteCopiesInAnyOrderComeOutOnceInSeqOrder() {
    Random random = new Random(7);
    for (int round = 0; round < 200; round++) {
      LiveSequencer<String> s = new LiveSequencer<>(Map.of("t", 0L), 1_000, GAP, TIMEOUT);
      int n = 1 + random.nextInt(300);
      // every seq arrives from its writer (local or remote), some twice (redelivery), in a shuffled order
      List<Long> arrivals = new ArrayList<>();
      for (long q = 1; q <= n; q++) {
        arrivals.add(q);
        if (random.nextInt(5) == 0) {
          arrivals.add(q);
        }
      }
      // local order is commit order; shuffle within small windows as NATS and two pods interleave
      for (int i = 0; i < arrivals.size(); i += 8) {
        Collections.shuffle(arrivals.subList(i, Math.min(arrivals.size(), i + 8)), random);
      }
      // a few never arrive over the bus: only a catch-up can bring them
      Set<Long> lost = new HashSet<>();
      for (int i = 0; i < n / 20; i++) {
        lost.add(1L + random.nextInt(n));
      }
      List<String> out = new ArrayList<>();
      long now = 0;
      TreeMap<Long, String> store = new TreeMap<>();
      for (long q = 1; q <= n; q++) {
        store.put(q, ev(q));
      }
      for (long q : arrivals) {
        now += random.nextInt(20);
        if (!lost.contains(q)) {
          out.addAll(s.accept("t", q, ev(q), now));
        }
        for (CatchUp c : s.due(now)) {
          List<Stored<String>> read = new ArrayList<>();
          store.subMap(c.fromSeq(), c.toSeqExclusive()).forEach((k, v) -> read.add(new Stored<>(k, v)));
          out.addAll(s.caughtUp("t", c.fromSeq(), c.toSeqExclusive(), read, now));
        }
      }
      // after the last arrival, the clock runs until every gap was read
      while (s.nextDeadline() != Long.MAX_VALUE) {
        now = Math.max(now + 1, s.nextDeadline());
        for (CatchUp c : s.due(now)) {
          List<Stored<String>> read = new ArrayList<>();
          store.subMap(c.fromSeq(), c.toSeqExclusive()).forEach((k, v) -> read.add(new Stored<>(k, v)));
          out.addAll(s.caughtUp("t", c.fromSeq(), c.toSeqExclusive(), read, now));
        }
      }
      List<String> expected = new ArrayList<>(store.values());
      if (lost.contains((long) n)) {
        // the last seq lost with nothing after it: no gap is visible until a later event arrives
        expected = expected.subList(0, expected.size() - trailingLost(lost, n));
      }
      assertEquals(expected, out, "round " + round);
    }
  }

  private static int trailingLost(Set<Long> lost, int n) {
    int k = 0;
    while (lost.contains((long) n - k)) {
      k++;
    }
    return k;
  }

  @Test
  void badSettingsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new LiveSequencer<>(Map.of(), 0, GAP, TIMEOUT));
    assertTrue(new LiveSequencer<String>(Map.of(), 1, 0, 1).due(0).isEmpty());
  }
}
