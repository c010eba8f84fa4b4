package dev.cairn.store.outbox;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ids of the domain events one outbox writer creates: time-ordered UUIDs (version 7, RFC 9562),
 * 48 bits of Unix milliseconds, a 12-bit counter, then random bits. A writer's rows are written in time
 * order, so the unique index on {@code event_id} (and the ledger's key) grows at its end instead of at
 * random pages; the counter keeps one writer's ids in creation order within a millisecond. Ids of two
 * writers (two tenants, two pods) are ordered by their milliseconds only: uniqueness comes from the 62
 * random bits. Dedup ids need uniqueness, not secrecy: ThreadLocalRandom avoids SecureRandom's lock on
 * the writer thread.
 */
public final class DomainEventIds {
  /** Milliseconds shifted by 12 bits, plus the counter, of the last id handed out. */
  private final AtomicLong last = new AtomicLong();

  /** A new id, later than every earlier one of this writer. */
  public String next(long nowMs) {
    long stamp = last.updateAndGet(prev -> Math.max(prev + 1, nowMs << 12));
    long ms = stamp >>> 12;
    long counter = stamp & 0xfff;
    long msb = (ms << 16) | 0x7000L | counter;
    long lsb = (ThreadLocalRandom.current().nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(msb, lsb).toString();
  }
}
