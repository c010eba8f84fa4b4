package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The group commit's queue: one commit waits at most, and a commit takes its batch when it starts. */
class CommitQueueTest {

  @Test
  void oneCommitWaitsAtMostAndTakesWhatArrivedBeforeItStarted() {
    CommitQueue<Integer> q = new CommitQueue<>();
    q.add(1);
    assertTrue(q.arm(), "nothing asked for yet: the caller asks for a commit");
    q.add(2);
    assertFalse(q.arm(), "a commit is already coming for item 2");
    q.add(3);
    assertEquals(List.of(1, 2, 3), q.take(10), "the commit takes everything that arrived before it started");
    assertTrue(q.isEmpty());
    q.add(4);
    assertTrue(q.arm(), "the commit started: item 4 needs the next one");
  }

  @Test
  void aCommitTakesAtMostMaxOldestFirstAndMayFindNothing() {
    CommitQueue<Integer> q = new CommitQueue<>();
    for (int i = 0; i < 5; i++) {
      q.add(i);
    }
    assertEquals(List.of(0, 1), q.take(2));
    assertEquals(List.of(2, 3, 4), q.take(2048));
    assertEquals(List.of(), q.take(2048), "the commit before took it all");
  }

  /** Items added from one thread while another takes: each is taken exactly once, in order. */
  @Test
  @Timeout(60) // a commit that never disarms the queue would leave the last items waiting forever
  void everyItemIsTakenOnceAcrossThreads() throws Exception {
    CommitQueue<Integer> q = new CommitQueue<>();
    int n = 200_000;
    List<Integer> taken = new ArrayList<>();
    ExecutorService lane = Executors.newSingleThreadExecutor();
    CountDownLatch done = new CountDownLatch(1);
    try {
      for (int i = 0; i < n; i++) {
        q.add(i);
        if (q.arm()) {
          lane.execute(() -> taken.addAll(q.take(64)));
        }
        if (i % 1000 == 0) {
          Thread.onSpinWait();
        }
      }
      // what the last commits left (over 64 per commit) is taken by commits asked for afterwards
      while (true) {
        lane.submit(() -> { }).get();
        if (q.isEmpty()) {
          break;
        }
        if (q.arm()) {
          lane.execute(() -> taken.addAll(q.take(64)));
        }
      }
      lane.execute(done::countDown);
      assertTrue(done.await(10, TimeUnit.SECONDS));
    } finally {
      lane.shutdown();
    }
    assertEquals(n, taken.size());
    for (int i = 0; i < n; i++) {
      assertEquals(i, taken.get(i));
    }
  }
}
