package dev.cairn.network;

import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The messages queued for all of one listener's WebSockets, against a bound. Each connection's own
 * queue is bounded ({@code limits.max_outbound_bytes}), but a thousand subscribers that all read a
 * little slower than a fan-out overload is offered stay under it for a minute while together they hold
 * tens of millions of queued messages (two references each, the events shared): 35 million and 908 MB
 * of RSS after 30 s of 2,000 events/s to 1,000 subscribers. Over {@code limits.max_outbound_messages}
 * (16 million by default: ~128 MB of references) the listener reads no more client input (no new
 * EVENTs, so no new fan-out) until the queues drain to 15/16 of it; the subscribers keep reading what
 * waits, and nobody is closed for the relay being behind. The margin is
 * small so that at the bound the publishers are paced by short pauses (a drain to 3/4 took 3.7 s of
 * 1,000 subscribers' reading, every OK waiting as long), not long ones.
 *
 * <p>Below the bound nothing waits on it: publishers are answered as fast as the write path goes, and
 * what their events fan out to queues. Used on the listener's event loop only.
 */
final class OutboundBudget {
  private static final Logger LOG = Logger.getLogger(OutboundBudget.class.getName());
  private static final long LOG_EVERY_NANOS = 10_000_000_000L;

  private final int listener;
  private final long max;
  private final long resumeAt;
  private final AtomicLong gauge;
  private long queued;
  private boolean full;
  private long fullSinceNanos;
  /** The last pause logged, and the pauses since that were not (one line per episode of 10 s at most). */
  private long loggedAtNanos;
  private boolean loggedThis;
  private int unlogged;

  OutboundBudget(int listener, long max, AtomicLong gauge) {
    this.listener = listener;
    this.max = max;
    this.resumeAt = max - max / 16;
    this.gauge = gauge;
  }

  /** True while over the bound, until the queues drained to 15/16 of it: read no client input. */
  boolean full() {
    return full;
  }

  void added(int messages) {
    queued += messages;
    gauge.lazySet(queued);
    if (!full && queued > max) {
      full = true;
      fullSinceNanos = System.nanoTime();
      loggedThis = loggedAtNanos == 0 || fullSinceNanos - loggedAtNanos >= LOG_EVERY_NANOS;
      if (!loggedThis) {
        unlogged++;
        return;
      }
      loggedAtNanos = fullSinceNanos;
      LOG.warning("listener " + listener + ": " + queued + " messages queued for its clients (more than " + max
          + "): client input paused until they drain to " + resumeAt
          + (unlogged > 0 ? " (" + unlogged + " more pauses since the last of these lines)" : ""));
      unlogged = 0;
    }
  }

  /** Returns true when this removal ended a pause: the caller resumes the sockets it paused. */
  boolean removed(int messages) {
    if (messages == 0) {
      return false;
    }
    queued -= messages;
    gauge.lazySet(queued);
    if (full && queued <= resumeAt) {
      full = false;
      if (!loggedThis) {
        return true;
      }
      LOG.info("listener " + listener + ": client input resumed after "
          + (System.nanoTime() - fullSinceNanos) / 1_000_000 + " ms, " + queued + " messages queued");
      return true;
    }
    return false;
  }
}
