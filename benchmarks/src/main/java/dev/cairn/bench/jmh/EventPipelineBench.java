package dev.cairn.bench.jmh;

import dev.cairn.nostr.ClientMessage;
import dev.cairn.nostr.ClientMessageParser;
import dev.cairn.nostr.EventId;
import dev.cairn.nostr.EventParser;
import dev.cairn.nostr.NostrEvent;
import java.util.List;
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
 * The CPU path of one incoming event before the signature check, on the relay's own classes, over a
 * realistic mix (kind 1 notes of 100-2000 bytes with e/p/t tags, reactions, profiles, contact lists,
 * long-form): {@code parseEvent} = EventParser (structure, hex, ranges), {@code parseFrame} = the
 * whole {@code ["EVENT",{...}]} frame through ClientMessageParser, {@code canonicalIdHash} =
 * EventId.compute (canonical serialization + SHA-256), {@code parseAndCheckId} = parse + EventId.verify.
 * One operation = one event.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class EventPipelineBench {
  private String[] lines;
  private String[] frames;
  private NostrEvent[] events;
  private int i;

  @Setup
  public void setup() {
    List<String> l = Fixtures.lines(2000);
    lines = l.toArray(String[]::new);
    frames = l.stream().map(s -> "[\"EVENT\"," + s + "]").toArray(String[]::new);
    events = Fixtures.parsed(l).toArray(NostrEvent[]::new);
    for (NostrEvent e : events) {
      if (!EventId.verify(e)) throw new IllegalStateException("id mismatch on a generated event: " + e.id());
    }
  }

  private int next() {
    int k = i;
    i = k + 1 == lines.length ? 0 : k + 1;
    return k;
  }

  @Benchmark
  public NostrEvent parseEvent() throws Exception {
    return EventParser.parse(lines[next()]);
  }

  @Benchmark
  public ClientMessage parseFrame() throws Exception {
    return ClientMessageParser.parse(frames[next()], 64, 10);
  }

  @Benchmark
  public String canonicalIdHash() {
    return EventId.compute(events[next()]);
  }

  @Benchmark
  public boolean parseAndCheckId() throws Exception {
    return EventId.verify(EventParser.parse(lines[next()]));
  }
}
