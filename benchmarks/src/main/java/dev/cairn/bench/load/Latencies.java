package dev.cairn.bench.load;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Latency samples in microseconds, recorded per thread without locks and merged at the end. */
public final class Latencies {
  private final ThreadLocal<Buf> local = ThreadLocal.withInitial(this::newBuf);

  private static final class Buf {
    long[] a = new long[1 << 14];
    int n;
  }

  private final List<Buf> all = new ArrayList<>();

  private synchronized Buf newBuf() {
    Buf b = new Buf();
    all.add(b);
    return b;
  }

  public void recordNanos(long nanos) {
    Buf b = local.get();
    if (b.n == b.a.length) b.a = Arrays.copyOf(b.a, b.a.length * 2);
    b.a[b.n++] = nanos / 1000;
  }

  /**
   * Merged, sorted samples. Safe while other threads still record (late arrivals after a drain
   * timeout): each thread's buffer is read once, up to the count seen.
   */
  public synchronized Snapshot snapshot() {
    long[][] arrays = new long[all.size()][];
    int[] counts = new int[all.size()];
    int total = 0;
    for (int k = 0; k < all.size(); k++) {
      Buf b = all.get(k);
      long[] a = b.a;
      int n = Math.min(b.n, a.length);
      arrays[k] = a;
      counts[k] = n;
      total += n;
    }
    long[] merged = new long[total];
    int p = 0;
    for (int k = 0; k < arrays.length; k++) {
      System.arraycopy(arrays[k], 0, merged, p, counts[k]);
      p += counts[k];
    }
    Arrays.sort(merged);
    return new Snapshot(merged);
  }

  public record Snapshot(long[] sortedMicros) {
    public long count() {
      return sortedMicros.length;
    }

    /** Percentile in milliseconds (nearest rank); NaN when empty. */
    public double pctMs(double p) {
      if (sortedMicros.length == 0) return Double.NaN;
      int idx = (int) Math.ceil(p / 100.0 * sortedMicros.length) - 1;
      idx = Math.max(0, Math.min(sortedMicros.length - 1, idx));
      return sortedMicros[idx] / 1000.0;
    }

    public double meanMs() {
      if (sortedMicros.length == 0) return Double.NaN;
      double s = 0;
      for (long v : sortedMicros) s += v;
      return s / sortedMicros.length / 1000.0;
    }

    public String describe() {
      return String.format(Locale.ROOT, "p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms (n=%d)",
          pctMs(50), pctMs(90), pctMs(99), pctMs(100), count());
    }
  }
}
