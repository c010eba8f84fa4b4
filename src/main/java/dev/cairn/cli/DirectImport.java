package dev.cairn.cli;

import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.policy.OfflineRules;
import dev.cairn.sig.Bip340Verifier;
import dev.cairn.store.PersistOutcome;
import dev.cairn.store.PersistResult;
import dev.cairn.store.Removal;
import dev.cairn.store.RemovalReason;
import dev.cairn.store.StoreException;
import dev.cairn.store.SqliteTenantStore;
import dev.cairn.store.feed.FeedChange;
import dev.cairn.store.feed.FeedTable;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The direct import: JSONL lines into one tenant store, through the same write path as a live
 * EVENT ({@link SqliteTenantStore#persist}: WriteRules, outbox and change-feed rows, group commit).
 *
 * <p>A pipeline of three stages. A reader thread cuts the input into chunks of {@code batch} lines
 * and hands each to the verification pool ({@code threads} threads: parse, id and BIP-340
 * signature, {@link OfflineRules}), which is the CPU cost; the calling thread takes the verified
 * chunks back in input order and persists each in one transaction. A bounded queue of chunks
 * between them keeps verification a few batches ahead of the writer and the memory bounded.
 * Events are applied in input order, as the relay would have applied them one after the other.
 * A checkpoint thread copies the WAL into the DB file as the relay's engine does.
 */
final class DirectImport {
  private static final ThreadLocal<Bip340Verifier> VERIFIER = ThreadLocal.withInitial(Bip340Verifier::new);
  private static final Future<List<NostrEvent>> END = CompletableFuture.completedFuture(List.of());

  private final SqliteTenantStore store;
  private final OfflineRules rules;
  private final int batch;
  private final int threads;
  private final String tooLong;
  private final Outcomes outcomes;
  private final PrintStream err;
  private final Map<RemovalReason, AtomicLong> removed = new EnumMap<>(RemovalReason.class);
  private final AtomicLong feedLost = new AtomicLong();
  /** The writer's time: in commits, and waiting for verified chunks (which says which stage limits). */
  private final AtomicLong commitNanos = new AtomicLong();
  private final AtomicLong waitNanos = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private volatile boolean stop;

  DirectImport(SqliteTenantStore store, OfflineRules rules, int batch, int threads, String tooLong, Outcomes outcomes,
      PrintStream err) {
    this.store = store;
    this.rules = rules;
    this.batch = batch;
    this.threads = threads;
    this.tooLong = tooLong;
    this.outcomes = outcomes;
    this.err = err;
    for (RemovalReason r : RemovalReason.values()) {
      removed.put(r, new AtomicLong());
    }
  }

  /** Imports every line of {@code lines}; throws when the input or the store fails (what was committed stays). */
  void run(LineReader lines) throws IOException, InterruptedException {
    AtomicInteger n = new AtomicInteger();
    ExecutorService verifiers = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "cairn-import-verify-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    ScheduledExecutorService checkpointer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "cairn-import-checkpoint");
      t.setDaemon(true);
      return t;
    });
    checkpointer.scheduleWithFixedDelay(this::checkpoint, 250, 250, TimeUnit.MILLISECONDS);
    BlockingQueue<Future<List<NostrEvent>>> chunks = new ArrayBlockingQueue<>(2 * threads + 2);
    IOException[] readError = new IOException[1];
    Thread reader = new Thread(() -> read(lines, verifiers, chunks, readError), "cairn-import-read");
    reader.setDaemon(true);
    reader.start();
    try {
      write(chunks);
    } finally {
      stop = true;
      // Unblock the reader if the writer failed, so that it reaches its END (a reader blocked on
      // an endless stdin is a daemon thread: left behind).
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (reader.isAlive() && System.nanoTime() < deadline) {
        chunks.poll(100, TimeUnit.MILLISECONDS);
      }
      verifiers.shutdownNow();
      checkpointer.shutdownNow();
      checkpointer.awaitTermination(10, TimeUnit.SECONDS);
      checkpoint();
    }
    if (readError[0] != null) {
      throw readError[0];
    }
  }

  private void read(LineReader lines, ExecutorService verifiers, BlockingQueue<Future<List<NostrEvent>>> chunks,
      IOException[] readError) {
    try {
      List<byte[]> chunk = new ArrayList<>(batch);
      byte[] line;
      while (!stop && (line = lines.next()) != null) {
        if (line == LineReader.TOO_LONG) {
          outcomes.add(tooLong);
        } else if (LineReader.blank(line)) {
          outcomes.blankLine();
        } else {
          chunk.add(line);
          if (chunk.size() == batch) {
            List<byte[]> full = chunk;
            chunks.put(verifiers.submit(() -> verify(full)));
            chunk = new ArrayList<>(batch);
          }
        }
      }
      if (!stop && !chunk.isEmpty()) {
        List<byte[]> last = chunk;
        chunks.put(verifiers.submit(() -> verify(last)));
      }
    } catch (IOException e) {
      readError[0] = e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try {
        chunks.put(END);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A verification thread's work: the chunk's events that may be stored, in input order. */
  private List<NostrEvent> verify(List<byte[]> lines) {
    Bip340Verifier verifier = VERIFIER.get();
    long now = System.currentTimeMillis() / 1000;
    List<NostrEvent> ok = new ArrayList<>(lines.size());
    for (byte[] line : lines) {
      NostrEvent e;
      try {
        e = EventLines.parse(line);
      } catch (InvalidMessageException x) {
        outcomes.add(x.getMessage());
        continue;
      }
      String refused = verifier.check(e);
      if (refused == null) {
        refused = rules.check(e, now);
      }
      if (refused != null) {
        outcomes.add(refused);
      } else {
        ok.add(e);
      }
    }
    return ok;
  }

  private void write(BlockingQueue<Future<List<NostrEvent>>> chunks) throws InterruptedException {
    while (true) {
      Future<List<NostrEvent>> f = chunks.take();
      if (f == END) {
        return;
      }
      List<NostrEvent> events;
      long t0 = System.nanoTime();
      try {
        events = f.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException("verification failed", e.getCause());
      }
      long t1 = System.nanoTime();
      waitNanos.addAndGet(t1 - t0);
      if (events.isEmpty()) {
        continue;
      }
      PersistOutcome o = store.persist(events, System.currentTimeMillis() / 1000);
      commitNanos.addAndGet(System.nanoTime() - t1);
      commits.incrementAndGet();
      for (PersistResult r : o.results()) {
        if (r instanceof PersistResult.Stored s) {
          outcomes.add(Outcomes.STORED);
          for (Removal rm : s.removed()) {
            removed.get(rm.reason()).incrementAndGet();
          }
        } else if (r instanceof PersistResult.Duplicate d) {
          outcomes.add(d.message());
        } else if (r instanceof PersistResult.Rejected j) {
          outcomes.add(j.message());
        }
      }
      if (o.feedError() != null) {
        retryFeed(o.feed(), o.feedError());
      }
    }
  }

  /**
   * The change-feed rows of a commit whose feed insert failed (the events are stored: the feed never
   * fails the write), inserted once more in their own transaction, as the relay's retry buffer would.
   */
  private void retryFeed(List<FeedChange> changes, Exception cause) {
    try {
      store.withWriter(30_000, sql -> FeedTable.insert(sql, changes, 30));
    } catch (StoreException e) {
      if (feedLost.getAndAdd(changes.size()) == 0) {
        err.println("import: change-feed rows could not be written (" + cause.getMessage() + "; retry: "
            + e.getMessage() + "); the events are stored, feed consumers will not see them");
      }
    }
  }

  private void checkpoint() {
    try {
      store.checkpoint();
    } catch (RuntimeException e) {
      // the next one will do
    }
  }

  /** Rows the imported events removed, by reason (replaced versions, NIP-09 deletions). */
  Map<RemovalReason, Long> removed() {
    Map<RemovalReason, Long> out = new EnumMap<>(RemovalReason.class);
    removed.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /** "412 commits, 38.1 s committing, 2.0 s waiting for verification". */
  String writerTime() {
    return String.format("%d commits, %.1f s committing, %.1f s waiting for verified events", commits.get(),
        commitNanos.get() / 1e9, waitNanos.get() / 1e9);
  }

  /** Change-feed rows that could not be written. */
  long feedLost() {
    return feedLost.get();
  }
}
