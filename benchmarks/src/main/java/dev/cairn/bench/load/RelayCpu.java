package dev.cairn.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time a relay process spent (user + system, every thread: /proc/PID/stat fields 14 and 15)
 * between two readings. On two cores shared with the load tool the rates a tool measures are set by
 * the whole machine; the relay's CPU per unit of work (per stored event, query, delivery) is its own
 * cost, whatever the tool's. Linux reports these fields in USER_HZ ticks, 100 per second on x86-64.
 */
public final class RelayCpu {
  private static final double TICKS_PER_SECOND = 100.0;
  private final long pid;
  private final long startTicks;

  private RelayCpu(long pid) {
    this.pid = pid;
    this.startTicks = ticks(pid);
  }

  /** A reading of {@code pid} now (none when pid <= 0 or the process cannot be read). */
  public static RelayCpu start(long pid) {
    return new RelayCpu(pid);
  }

  /** CPU seconds since {@link #start}; negative when not measured. */
  public double seconds() {
    long now = ticks(pid);
    return startTicks < 0 || now < 0 ? -1 : (now - startTicks) / TICKS_PER_SECOND;
  }

  /**
   * Adds {@code relay_cpu_s} and {@code key} = CPU per unit of work ({@code scale} units per CPU second:
   * 1e6 for microseconds, 1e3 for milliseconds) when measured and {@code units} > 0.
   */
  public void report(Result r, String key, long units, double scale) {
    put(r, key, seconds(), units, scale);
  }

  /** As {@link #report}, for CPU seconds read earlier ({@code cpuSeconds} negative: not measured). */
  public static void put(Result r, String key, double cpuSeconds, long units, double scale) {
    if (cpuSeconds < 0 || units <= 0) return;
    r.put("relay_cpu_s", Result.round(cpuSeconds)).put(key, Result.round(cpuSeconds * scale / units));
  }

  private static long ticks(long pid) {
    if (pid <= 0) return -1;
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // the command name (field 2) is in parentheses and may hold spaces: count fields after its ')'
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 (utime) and 15 (stime)
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
