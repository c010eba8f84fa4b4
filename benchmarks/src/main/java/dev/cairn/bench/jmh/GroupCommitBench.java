package dev.cairn.bench.jmh;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistResult;
import dev.cairn.store.SqliteTenantStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * database-engine group commit: SqliteTenantStore.persistBatch (one SQLite transaction per batch, WAL,
 * synchronous=NORMAL) at batch sizes 1, 64 and 1024. Score = events/s stored. The events are regular
 * kind 1/7 events of the generator's mix with fresh ids (the store does not check signatures), so every
 * one is a real insert with its tag index rows; batches are built outside the measured call.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
public class GroupCommitBench {

  /** One store (a fresh SQLite file) and a source of never-seen events; the next batch is built per call. */
  public abstract static class Store {
    private NostrEvent[] templates;
    private Path dir;
    SqliteTenantStore store;
    private long counter;
    private int t;
    List<NostrEvent> batch;

    abstract int size();

    @Setup(Level.Trial)
    public void open() throws IOException {
      templates = Fixtures.parsed(Fixtures.lines(2000, 200, "1:70,7:30")).toArray(NostrEvent[]::new);
      dir = Files.createTempDirectory("cairn-jmh-store");
      store = SqliteTenantStore.open(dir.resolve("bench.db"), 1);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      store.close();
      try (Stream<Path> s = Files.walk(dir)) {
        s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }

    @Setup(Level.Invocation)
    public void nextBatch() {
      List<NostrEvent> out = new ArrayList<>(size());
      for (int k = 0; k < size(); k++) {
        NostrEvent e = templates[t];
        t = t + 1 == templates.length ? 0 : t + 1;
        String id = String.format("%064x", ++counter);
        out.add(NostrEvent.of(id, e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content(), e.sig()));
      }
      batch = out;
    }

    List<PersistResult> persist() {
      List<PersistResult> r = store.persistBatch(batch, System.currentTimeMillis() / 1000);
      if (!(r.get(0) instanceof PersistResult.Stored)) throw new IllegalStateException("not stored: " + r.get(0));
      return r;
    }
  }

  @State(Scope.Thread)
  public static class Batch1 extends Store {
    @Override
    int size() {
      return 1;
    }
  }

  @State(Scope.Thread)
  public static class Batch64 extends Store {
    @Override
    int size() {
      return 64;
    }
  }

  @State(Scope.Thread)
  public static class Batch1024 extends Store {
    @Override
    int size() {
      return 1024;
    }
  }

  @Benchmark
  @OperationsPerInvocation(1)
  public List<PersistResult> batchOf1(Batch1 s) {
    return s.persist();
  }

  @Benchmark
  @OperationsPerInvocation(64)
  public List<PersistResult> batchOf64(Batch64 s) {
    return s.persist();
  }

  @Benchmark
  @OperationsPerInvocation(1024)
  public List<PersistResult> batchOf1024(Batch1024 s) {
    return s.persist();
  }
}
