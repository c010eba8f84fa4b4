package dev.cairn.network;

import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The messages queued for all of one listener's WebSockets, against a bound. Each connection's own
 * queue is bounded ({@code limits.max_outbound_bytes}), but a thousand subscribers that all read a
 * little slower than a fan-out overload is offered stay under it for a minute while together they hold
 * tens of millions of queued messages (two references each, the events shared): 35 million and 908 MB
 * of RSS after 30 s of 2,000 events/s to 1,000 subscribers. Over {@code limits.max_outbound_messages}
 * (16 million by default: ~128 MB of references) the listener reads no more client input (no new EVENTs, so no new fan-out) until the queues drain to 3/4 of it; the
 * subscribers keep reading what waits, and nobody is closed for the relay being behind.
 *
 * <p>Below the bound nothing waits on it: publishers are answered as fast as the write path goes, and
 * what their events fan out to queues. Used on the listener's event loop only.
 */
final class OutboundBudget {
  private static final Logger LOG = Logger.getLogger(OutboundBudget.class.getName());
  private final int listener;
  private final long max;
  private final long resumeAt;
  private final AtomicLong gauge;
  private long queued;
  private boolean full;
  private long fullSinceNanos;

  OutboundBudget(int listener, long max, AtomicLong gauge) {
    this.listener = listener;
    this.max = max;
    this.resumeAt = max / 4 * 3;
    this.gauge = gauge;
  }

  /** True while over the bound, until the queues drained to 3/4 of it: read no client input. */
  boolean full() {
    return full;
  }

  long queued() {
    return queued;
  }

  void added(int frames) {
    queued += frames;
    gauge.lazySet(queued);
    if (!full && queued > max) {
      full = true;
      fullSinceNanos = System.nanoTime();
      LOG.warning("listener " + listener + ": " + queued + " messages queued for its clients (more than " + max
          + "): client input paused until they drain to " + resumeAt);
    }
  }

  /** Returns true when this removal ended a pause: the caller resumes the sockets it paused. */
  boolean removed(int frames) {
    if (frames == 0) {
      return false;
    }
    queued -= frames;
    gauge.lazySet(queued);
    if (full && queued <= resumeAt) {
      full = false;
      LOG.info("listener " + listener + ": client input resumed after "
          + (System.nanoTime() - fullSinceNanos) / 1_000_000 + " ms, " + queued + " messages queued");
      return true;
    }
    return false;
  }
}
