package dev.cairn;

import java.lang.management.ManagementFactory;
import java.util.logging.Logger;

/**
 * The process's open-files limit, said at start. Each WebSocket or SSE connection holds a descriptor,
 * the stores a few dozen more; past the limit new connections wait in the kernel's accept queue while
 * Netty logs "Too many open files" once a second, which does not say what to change. A limit below
 * {@link #ENOUGH} is a warning with the knobs to raise it. (The JVM already raises its soft limit to the
 * hard one at start.)
 */
final class OpenFilesLimit {
  private static final Logger LOG = Logger.getLogger(OpenFilesLimit.class.getName());
  /** Room for the 10,000 idle subscribers of the benchmarks, the stores and some slack. */
  static final long ENOUGH = 16_384;

  private OpenFilesLimit() {}

  static void report() {
    if (!(ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os)) {
      return;
    }
    long max = os.getMaxFileDescriptorCount();
    long open = os.getOpenFileDescriptorCount();
    if (max < ENOUGH) {
      LOG.warning("open files limit " + max + " (" + open + " open now): each connection takes one, so past about "
          + Math.max(0, max - open - 64) + " more connections new ones wait unanswered (Netty logs \"Too many open"
          + " files\"); raise it: ulimit -n, systemd LimitNOFILE, docker run --ulimit nofile=65536:65536");
    } else {
      LOG.info("open files limit " + max + " (" + open + " open now)");
    }
  }
}
