package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ReadTurns}: at most so many reads at once, the waiting ones taken in turns across connections. */
class ReadTurnsTest {
  /** The reads started so far, by name, and their promises to complete them by hand. */
  private final List<String> started = new ArrayList<>();
  private final List<Promise<Void>> running = new ArrayList<>();
  /** The reads dropped, by name. */
  private final List<String> dropped = new ArrayList<>();

  private void read(ReadTurns turns, long connId, String name) {
    turns.run(connId, () -> {
      started.add(name);
      Promise<Void> p = Promise.promise();
      running.add(p);
      return p.future();
    }, () -> dropped.add(name));
  }

  /** Completes the oldest running read. */
  private void finishOne(boolean ok) {
    Promise<Void> p = running.remove(0);
    if (ok) {
      p.complete();
    } else {
      p.fail("query failed");
    }
  }

  @Test
  void aBacklogOfOneConnectionWaitsItsTurnBehindTheOthers() {
    ReadTurns turns = new ReadTurns(2);
    for (int i = 0; i < 6; i++) {
      read(turns, 1, "a" + i);
    }
    read(turns, 2, "b0");
    read(turns, 2, "b1");
    read(turns, 3, "c0");
    assertEquals(List.of("a0", "a1"), started, "two at once, the rest wait");
    for (int i = 0; i < 7; i++) {
      finishOne(i % 3 != 0); // a failed read frees its place too
    }
    assertEquals(List.of("a0", "a1", "a2", "b0", "c0", "a3", "b1", "a4", "a5"), started,
        "one read per connection per turn, each connection's own in its order");
    finishOne(true);
    finishOne(true);
    assertEquals(0, running.size());
  }

  @Test
  void aReadThatThrowsFreesItsPlace() {
    ReadTurns turns = new ReadTurns(1);
    turns.run(1, () -> {
      throw new IllegalStateException("store gone");
    }, () -> dropped.add("a0"));
    read(turns, 2, "b0");
    assertEquals(List.of("b0"), started);
  }

  @Test
  void aClosedConnectionsWaitingReadsAreDroppedNotRun() {
    ReadTurns turns = new ReadTurns(1);
    read(turns, 1, "a0");
    read(turns, 1, "a1");
    read(turns, 2, "b0");
    read(turns, 1, "a2");
    read(turns, 3, "c0");
    assertEquals(2, turns.forget(1), "its two waiting reads");
    assertEquals(List.of("a1", "a2"), dropped);
    assertEquals(0, turns.forget(1));
    assertEquals(0, turns.forget(4), "a connection with nothing waiting");
    finishOne(true); // a0, already running when its connection closed, runs to its end
    finishOne(true);
    finishOne(true);
    assertEquals(List.of("a0", "b0", "c0"), started, "the others' reads in their turns");
    assertEquals(0, running.size());
  }

  @Test
  void refusesNoConcurrency() {
    assertThrows(IllegalArgumentException.class, () -> new ReadTurns(0));
  }

  @Test
  void readsStartAtOnceWhileThereIsRoom() {
    ReadTurns turns = new ReadTurns(3);
    read(turns, 1, "a0");
    read(turns, 1, "a1");
    read(turns, 1, "a2");
    assertEquals(List.of("a0", "a1", "a2"), started);
    read(turns, 2, "b0");
    finishOne(true);
    assertEquals(List.of("a0", "a1", "a2", "b0"), started);
  }
}
