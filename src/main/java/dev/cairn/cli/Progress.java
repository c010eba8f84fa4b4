package dev.cairn.cli;

import java.io.PrintStream;
import java.util.function.Supplier;

/**
 * A progress line on stderr every few seconds while a long run goes on (none for a run shorter than
 * the interval, none with {@code --quiet}). The line is built by the command on this thread.
 */
final class Progress implements AutoCloseable {
  static final long INTERVAL_MS = 5_000;

  private final Thread thread;

  private Progress(Thread thread) {
    this.thread = thread;
  }

  static Progress start(PrintStream err, boolean quiet, long intervalMs, Supplier<String> line) {
    if (quiet) {
      return new Progress(null);
    }
    Thread t = new Thread(() -> {
      try {
        while (true) {
          Thread.sleep(intervalMs);
          err.println(line.get());
          err.flush();
        }
      } catch (InterruptedException done) {
        // the run is over
      }
    }, "cairn-progress");
    t.setDaemon(true);
    t.start();
    return new Progress(t);
  }

  @Override
  public void close() {
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** "12345/s" from a count and the seconds it took. */
  static String rate(long n, double seconds) {
    return seconds <= 0 ? "-" : String.format("%.0f/s", n / seconds);
  }
}
