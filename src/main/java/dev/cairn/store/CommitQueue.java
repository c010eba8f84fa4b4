package dev.cairn.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One tenant's persists waiting for their group commit (database-engine). The engine's event loop adds
 * them; a commit takes its batch when it starts ({@link #take}), on the tenant's writer lane where the
 * store has one, so what arrived while the previous commit ran goes into the next commit as soon as
 * the lane is free, without a round trip through the event loop between two commits. At most one
 * commit waits to start at a time ({@link #arm}).
 */
final class CommitQueue<T> {
  private final ArrayDeque<T> waiting = new ArrayDeque<>();
  /** A commit was asked for and has not taken its batch yet. */
  private final AtomicBoolean armed = new AtomicBoolean();
  /** Commits asked for and not completed (engine's context only). */
  private int inFlight;

  synchronized void add(T item) {
    waiting.add(item);
  }

  synchronized boolean isEmpty() {
    return waiting.isEmpty();
  }

  /** True when no commit waits to start, and one is now asked for by the caller. */
  boolean arm() {
    return armed.compareAndSet(false, true);
  }

  /**
   * The next batch (oldest first, at most {@code max}), taken by a commit as it starts. It may be empty:
   * the commit before took what arrived before it started.
   */
  List<T> take(int max) {
    armed.set(false); // first: whatever arrives from now on has a commit to come
    synchronized (this) {
      List<T> batch = new ArrayList<>(Math.min(max, waiting.size()));
      while (batch.size() < max && !waiting.isEmpty()) {
        batch.add(waiting.poll());
      }
      return batch;
    }
  }

  int inFlight() {
    return inFlight;
  }

  void started() {
    inFlight++;
  }

  void completed() {
    inFlight--;
  }
}
