package dev.cairn.network;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The NIP-77 items (40 bytes each) held by the sync sessions of every conn-worker together, against
 * {@code limits.negentropy_max_records_total}: the per-connection caps alone would let many connections
 * hold the relay's memory. One per network-manager, shared by its conn-workers (which run on different
 * event loops, hence the atomic).
 */
final class SyncBudget {
  private final long max;
  private final AtomicLong held = new AtomicLong();

  SyncBudget(long max) {
    this.max = max;
  }

  /** Takes {@code n} items from the budget, or nothing when they do not fit. */
  boolean tryHold(long n) {
    while (true) {
      long h = held.get();
      if (h + n > max) {
        return false;
      }
      if (held.compareAndSet(h, h + n)) {
        return true;
      }
    }
  }

  void release(long n) {
    held.addAndGet(-n);
  }

  long max() {
    return max;
  }

  long held() {
    return held.get();
  }
}
