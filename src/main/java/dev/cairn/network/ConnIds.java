package dev.cairn.network;

/**
 * Connection and SSE stream ids of one listener incarnation, unique in the process: the listener's
 * index (6 bits), its incarnation (18 bits; a redeployed listener gets the next one) and a counter
 * (40 bits). Ids of a newer incarnation of a listener are all above those of the older one, so the
 * nodes that keep per-connection state can drop a dead incarnation's state by comparing ids ({@link
 * #first}), and no message for a dead connection can reach a new one that reused its number.
 */
final class ConnIds {
  static final int MAX_LISTENERS = 64;
  private static final int COUNTER_BITS = 40;
  private static final long INCARNATIONS = 1L << 18;

  private final long first;
  private long next;

  ConnIds(int listener, long incarnation) {
    if (listener < 0 || listener >= MAX_LISTENERS) {
      throw new IllegalArgumentException("at most " + MAX_LISTENERS + " listeners (http.binds)");
    }
    this.first = ((long) listener << 58) | ((incarnation % INCARNATIONS) << COUNTER_BITS);
    this.next = first + 1;
  }

  /** Below every id this incarnation hands out. */
  long first() {
    return first;
  }

  long next() {
    return next++;
  }
}
