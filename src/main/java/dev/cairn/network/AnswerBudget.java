package dev.cairn.network;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The answers waiting for all of one listener's WebSocket clients (history events, OKs, EOSEs, COUNTs:
 * bytes that only their own connection keeps alive, unlike a delivery's event, which its subscribers
 * share), against {@code limits.max_queued_answer_bytes}. One connection's queue is bounded by
 * {@code limits.max_outbound_bytes} (64 MiB), but clients that ask for large answers and read none of them
 * fill theirs together: twenty such clients held 1.3 GB. Over the bound the listener closes the client
 * that holds the most answers among those that have read nothing for {@link #STALL_MILLIS}; a client that
 * reads is not closed for it, however large its answers.
 *
 * <p>Used on the listener's event loop only.
 */
final class AnswerBudget {
  /** How long a socket must have been full before its client counts as not reading. */
  static final long STALL_MILLIS = 1_000;

  private final long max;
  private final AtomicLong gauge;
  private long queued;

  AnswerBudget(long max, AtomicLong gauge) {
    this.max = max;
    this.gauge = gauge;
  }

  long max() {
    return max;
  }

  /** The answer bytes queued changed by {@code delta} (negative when written or dropped). */
  void changed(long delta) {
    if (delta != 0) {
      queued += delta;
      gauge.lazySet(queued);
    }
  }

  boolean over() {
    return queued > max;
  }
}
