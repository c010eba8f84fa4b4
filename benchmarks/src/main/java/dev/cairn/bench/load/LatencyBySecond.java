package dev.cairn.bench.load;

import java.util.Locale;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Latency samples grouped by the wall-clock second their operation began (an EVENT's send, a write's
 * commit): a fresh relay's first seconds (class loading, the JIT) apart from the rest of a level, which
 * one p99 over the whole level hides. Safe to record from several threads.
 */
public final class LatencyBySecond {
  private final ConcurrentSkipListMap<Long, Latencies> bySecond = new ConcurrentSkipListMap<>();

  /** One sample: the operation began at {@code startEpochMs} and took {@code nanos}. */
  public void record(long startEpochMs, long nanos) {
    bySecond.computeIfAbsent(startEpochMs / 1000, k -> new Latencies()).recordNanos(nanos);
  }

  /** "1: p50/p99, 2: ..." in ms, seconds counted from the first one with a sample; "" without any. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    if (bySecond.isEmpty()) return "";
    long first = bySecond.firstKey();
    bySecond.forEach((second, l) -> {
      Latencies.Snapshot s = l.snapshot();
      if (sb.length() > 0) sb.append(", ");
      sb.append(second - first + 1).append(": ")
          .append(String.format(Locale.ROOT, "%.1f/%.1f", s.pctMs(50), s.pctMs(99)));
    });
    return sb.toString();
  }
}
