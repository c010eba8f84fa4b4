package dev.cairn.delivery.feed;

import dev.cairn.nostr.JsonBytes;

import dev.cairn.bench.jmh.Fixtures;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.feed.FeedRow;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * SSE frame encoding of the change feed (package-private {@code SseFrames}, hence this package): a
 * {@code stored} frame around an already serialized event (once per row per stream, replay's hot
 * path), a {@code deleted} frame and a heartbeat. One operation = one frame.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class SseFrameBench {
  private FeedRow[] stored;
  private FeedRow deleted;
  private JsonBytes out = new JsonBytes(4096);
  private int i;

  @Setup
  public void setup() {
    NostrEvent[] events = Fixtures.parsed(Fixtures.lines(1000)).toArray(NostrEvent[]::new);
    stored = new FeedRow[events.length];
    for (int k = 0; k < events.length; k++) {
      NostrEvent e = events[k];
      stored[k] = new FeedRow(k + 1, 1_796_000_000_000L, "stored", e.id(), e.kind(), e.pubkey(), null, e.json());
    }
    NostrEvent e = events[0];
    deleted = new FeedRow(7, 1_796_000_000_000L, "deleted", e.id(), e.kind(), e.pubkey(), "nip09", null);
  }

  @Benchmark
  public int storedFrame() {
    out = new JsonBytes(4096);
    SseFrames.row(out, "abcd2345", stored[i]);
    i = i + 1 == stored.length ? 0 : i + 1;
    return out.length();
  }

  @Benchmark
  public int deletedFrame() {
    out = new JsonBytes(4096);
    SseFrames.row(out, "abcd2345", deleted);
    return out.length();
  }

  @Benchmark
  public int heartbeatFrame() {
    out = new JsonBytes(4096);
    SseFrames.heartbeat(out, "abcd2345", 123_456);
    return out.length();
  }
}
