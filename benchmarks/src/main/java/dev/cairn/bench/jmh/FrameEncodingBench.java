package dev.cairn.bench.jmh;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.nostr.RelayMessages;
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
 * WebSocket frame encoding (dev.cairn.nostr.RelayMessages): {@code ["EVENT",sub,event]} around an
 * already serialized event (the fan-out hot path: once per delivery), {@code ["OK",...]} and
 * {@code ["EOSE",sub]}. One operation = one frame.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class FrameEncodingBench {
  private NostrEvent[] events;
  private int i;

  @Setup
  public void setup() {
    events = Fixtures.parsed(Fixtures.lines(1000)).toArray(NostrEvent[]::new);
  }

  private NostrEvent next() {
    NostrEvent e = events[i];
    i = i + 1 == events.length ? 0 : i + 1;
    return e;
  }

  @Benchmark
  public byte[] eventFrame() {
    return RelayMessages.event("sub-7f3a", next().json());
  }

  @Benchmark
  public byte[] okFrame() {
    return RelayMessages.ok(next().id(), true, "");
  }

  @Benchmark
  public byte[] eoseFrame() {
    return RelayMessages.eose("sub-7f3a");
  }
}
