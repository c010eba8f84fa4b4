package dev.cairn.store;

import java.io.IOException;
import java.util.logging.Logger;

/**
 * The background priority (Linux nice {@value #BACKGROUND_NICE}) of the SQLite store's threads whose
 * work may trail the writes: the WAL checkpointer and the search indexer (decision 0017,
 * {@code store.thread_priority}). Every OK waits for the tenant writer's commit, so under load the writer
 * is the relay's critical path; at the same priority as everyone, on two cores it spent a quarter to a
 * third of its wall time runnable but not running while those two threads and the signature workers had
 * the cores. At nice 10 they still get every cycle the critical path leaves idle and about a tenth of a
 * contended core; a WAL that grows past its bound is finished by the writer itself anyway. Any process
 * may lower its own threads' priority: no privilege is needed.
 *
 * <p>The JDK has no call for one thread's nice value, hence a small JNI library
 * ({@code src/main/c/cairn_thread_priority.c}). Where it is missing (not built for this platform) or
 * the setting is off, every thread keeps the JVM's default. The loaded library is process-wide state,
 * as the JVM keeps it.
 */
public final class ThreadPriority {
  private static final Logger LOG = Logger.getLogger(ThreadPriority.class.getName());
  static final String LIBRARY = "libcairnprio.so";
  static final int BACKGROUND_NICE = 10;

  /** Whether the library is loaded (null: not tried yet); process-wide, as the JVM keeps the library. */
  private static Boolean loaded;

  private final boolean enabled;
  /** Whether the calling thread has its priority already (an executor's threads get it on their first task). */
  private final ThreadLocal<Boolean> lowered = new ThreadLocal<>();

  /**
   * {@code enabled}: lower background threads where the library is there (loaded on the first
   * {@link #background}, on a thread that may block); false: leave every thread as it is.
   */
  public ThreadPriority(boolean enabled) {
    this.enabled = enabled;
  }

  /**
   * Gives the calling thread the background priority, once per thread (later calls are a thread-local
   * read). A failure leaves the thread as it was and is logged.
   */
  public void background() {
    if (!enabled || lowered.get() != null) {
      return;
    }
    lowered.set(Boolean.TRUE);
    if (!load()) {
      return;
    }
    int errno = setCurrentThreadNice(BACKGROUND_NICE);
    if (errno != 0) {
      LOG.warning("store thread priorities: thread " + Thread.currentThread().getName()
          + " keeps the default priority (setpriority failed with errno " + errno + ")");
    }
  }

  private static synchronized boolean load() {
    if (loaded == null) {
      String unavailable = null;
      try {
        if (NativeResource.load(LIBRARY, copy -> {
          System.load(copy.toString());
          return copy;
        }) == null) {
          unavailable = NativeResource.missing();
        }
      } catch (IOException | UnsatisfiedLinkError | SecurityException e) {
        unavailable = "loading it failed: " + e.getMessage();
      }
      loaded = unavailable == null;
      LOG.info(loaded
          ? "store thread priorities: WAL checkpoints and the search index at nice " + BACKGROUND_NICE
          : "store thread priorities: every thread at the default (" + unavailable + ")");
    }
    return loaded;
  }

  /** 0 when the calling thread now runs at {@code nice}, else the errno of setpriority(2). */
  static native int setCurrentThreadNice(int nice);
}
