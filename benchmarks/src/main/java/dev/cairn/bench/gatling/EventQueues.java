package dev.cairn.bench.gatling;

import dev.cairn.bench.load.EventFile;
import dev.cairn.bench.load.EventLine;
import dev.cairn.bench.load.Latencies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per-virtual-user event queues for the Gatling ingest scenarios: level k of the connection levels
 * publishes slice firstSlice + k of the file cut into {@code slices} equal slices (so levels never
 * resend an event), partitioned between its connections so that versions of one replaceable address
 * travel in order on one connection (see EventFile.partition).
 */
final class EventQueues {
  private final List<EventLine> all;
  private final LongAdder handedOut = new LongAdder();
  private final Map<Integer, Level> levels = new HashMap<>();
  private final List<Integer> order;
  private final int slices;
  private final int firstSlice;

  final class Level {
    final List<ArrayDeque<EventLine>> queues;
    final long deadlineNanos;
    final long startNanos = System.nanoTime();
    final Latencies lat = new Latencies();
    final LongAdder accepted = new LongAdder();
    final LongAdder duplicate = new LongAdder();
    final LongAdder rejected = new LongAdder();
    volatile long lastOkNanos;
    private int nextSlot;

    Level(int connections, int slice, int slices, double durationS) {
      this.queues = EventFile.partition(EventFile.slice(all, slice, slices), connections);
      this.deadlineNanos = System.nanoTime() + (long) (durationS * 1e9);
    }

    synchronized int claimSlot() {
      return nextSlot++ % queues.size();
    }

    /** Next event of a slot, or null when the slot is empty or the level's time is up. */
    EventLine next(int slot) {
      if (System.nanoTime() >= deadlineNanos) return null;
      ArrayDeque<EventLine> q = queues.get(slot);
      EventLine e;
      synchronized (q) {
        e = q.pollFirst();
      }
      if (e != null) handedOut.increment();
      return e;
    }
  }

  EventQueues(Path file, List<Integer> order, int slices, int firstSlice) {
    this.order = order;
    this.slices = slices;
    this.firstSlice = firstSlice;
    try {
      this.all = EventFile.readAll(file, Integer.MAX_VALUE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The level of {@code connections}; created (and its clock started) by its first user. */
  synchronized Level level(int connections, double durationS) {
    return levels.computeIfAbsent(connections,
        c -> new Level(c, firstSlice + order.indexOf(c), slices, durationS));
  }

  synchronized Level existingLevel(int connections) {
    return levels.get(connections);
  }

  int handedOutCount() {
    return (int) handedOut.sum();
  }

  int size() {
    return all.size();
  }
}
