package dev.cairn.store;

import io.netty.util.collection.LongObjectHashMap;
import io.vertx.core.Future;
import java.util.ArrayDeque;
import java.util.function.Supplier;

/**
 * History reads (REQ, COUNT) waiting for the store, taken in turns across connections: at most
 * {@code concurrency} run at once, and when one ends the next comes from the connection after the last
 * one served. So a client with a backlog of queries delays another client's query by at most one of its
 * own, never by its whole backlog. In arrival order (the reader pool's queue), 20 clients that had sent
 * 200 REQs each without reading held every other client's REQ for more than 30 s.
 *
 * <p>A connection that closed has its waiting reads dropped ({@link #forget}): each is answered without
 * running, so a client that sends a backlog of large queries and disconnects costs the store nothing more.
 *
 * <p>Engine's context only: {@link #run} is called there, and the reads' futures complete there.
 */
final class ReadTurns {
  private final int concurrency;
  private int running;
  /** Connection id -> its reads not yet started, in its own order. */
  private final LongObjectHashMap<ArrayDeque<Read>> waiting = new LongObjectHashMap<>();
  /** The connections that have reads waiting, each once, in turn order. */
  private final ArrayDeque<Long> turns = new ArrayDeque<>();

  ReadTurns(int concurrency) {
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
    }
    this.concurrency = concurrency;
  }

  /** A read: {@code start} runs it, {@code drop} answers it without running (its connection closed). */
  private record Read(Supplier<Future<?>> start, Runnable drop) {}

  /**
   * Starts {@code read} now when a slot is free, else when it is {@code connId}'s turn; {@code drop} is
   * called instead if the connection closes before then.
   */
  void run(long connId, Supplier<Future<?>> read, Runnable drop) {
    if (running < concurrency && turns.isEmpty()) {
      start(read);
      return;
    }
    ArrayDeque<Read> own = waiting.get(connId);
    if (own == null) {
      own = new ArrayDeque<>(2);
      waiting.put(connId, own);
      turns.add(connId);
    }
    own.add(new Read(read, drop));
  }

  /** The connection closed: its reads that have not started are dropped; returns how many. */
  int forget(long connId) {
    ArrayDeque<Read> own = waiting.remove(connId);
    if (own == null) {
      return 0;
    }
    turns.remove(connId);
    own.forEach(r -> r.drop().run());
    return own.size();
  }

  private void start(Supplier<Future<?>> read) {
    running++;
    Future<?> done;
    try {
      done = read.get();
    } catch (RuntimeException e) {
      done = Future.failedFuture(e);
    }
    done.onComplete(ar -> {
      running--;
      next();
    });
  }

  private void next() {
    while (running < concurrency && !turns.isEmpty()) {
      long connId = turns.poll();
      ArrayDeque<Read> own = waiting.get(connId);
      Read read = own.poll();
      if (own.isEmpty()) {
        waiting.remove(connId);
      } else {
        turns.add(connId); // its next read waits for the others' turns
      }
      start(read.start());
    }
  }
}
