package dev.cairn.store;

/**
 * How large a tenant writer's SQLite page cache is, from the size of its group commits. Every connection
 * opens with {@link SqliteFiles#CACHE_KIB} (16 MB). A commit dirties about one page per random-key
 * index entry (event id, pubkey, every indexed tag: ~7.5 pages per event of the benchmark's mix), so a
 * busy tenant's commits of several hundred events filled that cache with their own dirty pages: SQLite
 * spilled some to the WAL before the commit (written twice) and the index pages the next commit needs
 * were gone (7.7 {@code pread}s per event). From commits of {@link #LARGE_BATCH} events on the cache is
 * {@link #LARGE_KIB} (64 MB): 1.2 reads and 7.5 WAL frames per event, the writer's CPU per event ~18%
 * lower, 50 x 20 ingest ~8% higher (alternating runs: docs/benchmarks.md, decision 0013).
 *
 * <p>Not for every commit: a commit walks the whole cache while the store is under 1 GiB (see
 * {@link SqliteFiles#CACHE_KIB}), ~0.2 ms with a full 64 MB one, which is most of a one-event commit. So
 * the cache goes back to 16 MB at the first small commit once no large one came for
 * {@link #SHRINK_AFTER_NANOS}, and a quiet tenant does not hold 64 MB. Writer thread only.
 */
final class WriterCache {
  /** A commit of at least this many events makes the cache large. */
  static final int LARGE_BATCH = 32;
  /** The large cache, KiB. */
  static final int LARGE_KIB = 65_536;
  /** After this long without a large commit the next commit makes the cache small again. */
  static final long SHRINK_AFTER_NANOS = 60_000_000_000L;

  private boolean large;
  private long lastLargeNanos;

  /**
   * The {@code cache_size} (KiB) to set before a commit of {@code events} events at {@code nowNanos}
   * ({@link System#nanoTime}), or 0 to leave it as it is.
   */
  int before(int events, long nowNanos) {
    if (events >= LARGE_BATCH) {
      lastLargeNanos = nowNanos;
      if (!large) {
        large = true;
        return LARGE_KIB;
      }
      return 0;
    }
    if (large && nowNanos - lastLargeNanos >= SHRINK_AFTER_NANOS) {
      large = false;
      return SqliteFiles.CACHE_KIB;
    }
    return 0;
  }

  boolean large() {
    return large;
  }
}
