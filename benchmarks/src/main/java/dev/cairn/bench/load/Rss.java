package dev.cairn.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The resident memory of a relay process on this machine: {@code VmRSS} of /proc/PID/status, read once
 * or sampled every 200 ms in a background thread ({@link #sample}); whether the process is a JVM
 * (then {@code jcmd PID GC.run} makes heap-related RSS figures comparable).
 */
public final class Rss implements AutoCloseable {
  private final long pid;
  private final Thread thread;
  private volatile boolean stop;
  private volatile long startKb = -1;
  private volatile long maxKb = -1;
  private volatile long lastKb = -1;
  private volatile int samples;

  private Rss(long pid, long periodMs) {
    this.pid = pid;
    long first = kb(pid);
    startKb = first;
    maxKb = first;
    lastKb = first;
    samples = first >= 0 ? 1 : 0;
    thread = new Thread(() -> {
      while (!stop) {
        try {
          Thread.sleep(periodMs);
        } catch (InterruptedException e) {
          return;
        }
        long v = kb(pid);
        if (v < 0) continue;
        lastKb = v;
        if (v > maxKb) maxKb = v;
        samples++;
      }
    }, "rss-sampler");
    thread.setDaemon(true);
    if (pid > 0) thread.start();
  }

  /** Starts sampling VmRSS of {@code pid} (nothing when pid <= 0) every {@code periodMs}. */
  public static Rss sample(long pid, long periodMs) {
    return new Rss(pid, periodMs);
  }

  public long startKb() {
    return startKb;
  }

  public long maxKb() {
    return maxKb;
  }

  public long lastKb() {
    return lastKb;
  }

  public int samples() {
    return samples;
  }

  /** Adds rss_start_mb / rss_max_mb / rss_end_mb when sampled. */
  public void report(Result r) {
    if (startKb < 0) return;
    r.put("rss_start_mb", Result.round(startKb / 1024.0)).put("rss_max_mb", Result.round(maxKb / 1024.0))
        .put("rss_end_mb", Result.round(lastKb / 1024.0)).put("rss_samples", samples);
  }

  @Override
  public void close() {
    stop = true;
    thread.interrupt();
  }

  /** VmRSS in KB, -1 when the process is not there (or pid <= 0). */
  public static long kb(long pid) {
    if (pid <= 0) return -1;
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** True when the process runs a JVM (its executable is called java), so jcmd can talk to it. */
  public static boolean isJvm(long pid) {
    if (pid <= 0) return false;
    try {
      Path exe = Files.readSymbolicLink(Path.of("/proc/" + pid + "/exe"));
      if (exe.getFileName().toString().equals("java")) return true;
    } catch (IOException | RuntimeException e) {
      // not readable: fall back to comm
    }
    try {
      return Files.readString(Path.of("/proc/" + pid + "/comm")).trim().equals("java");
    } catch (IOException e) {
      return false;
    }
  }

  /** {@code jcmd PID GC.run} when the process is a JVM; then one second for the heap to settle. */
  public static boolean gcIfJvm(long pid) {
    if (!isJvm(pid)) return false;
    try {
      Process gc = new ProcessBuilder("jcmd", Long.toString(pid), "GC.run").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      gc.waitFor(30, TimeUnit.SECONDS);
      Thread.sleep(1000);
      return true;
    } catch (Exception e) {
      System.err.println("jcmd GC.run failed: " + e);
      return false;
    }
  }
}
