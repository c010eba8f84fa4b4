package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The catch-up read of live fan-out: a seq range in seq order, bounded, replaced events gone. */
class LiveRangeReadTest extends StoreTestBase {
  private static List<Long> seqs(List<StoredEvent> events) {
    return events.stream().map(StoredEvent::seq).toList();
  }

  @Test
  void aRangeComesBackInSeqOrderBoundedAndWithoutWhatWasReplaced() {
    for (int i = 1; i <= 10; i++) {
      stored(Ev.ev(i, Ev.ALICE, NOW - 100 + i, 1));
    }
    // a replaceable event, then its newer version: the first one's seq (11) is gone from the store
    stored(Ev.ev(100, Ev.BOB, NOW - 50, 0));
    stored(Ev.ev(101, Ev.BOB, NOW - 40, 0));
    assertEquals(12, store.highWaterSeq());

    assertEquals(List.of(3L, 4L, 5L), seqs(store.range(3, 6, 1000)));
    assertEquals(List.of(1L, 2L, 3L), seqs(store.range(1, 13, 3)), "at most max rows, the lowest seqs");
    assertEquals(List.of(10L, 12L), seqs(store.range(10, 13, 1000)), "a replaced event leaves a hole");
    assertEquals(List.of(), store.range(13, 20, 1000), "nothing above the high water");
    assertEquals(List.of(), store.range(5, 5, 1000), "an empty range");
    StoredEvent third = store.range(3, 4, 1).get(0);
    assertEquals(Ev.id(3), third.id());
    assertEquals(NOW - 97, third.createdAt());
  }
}
