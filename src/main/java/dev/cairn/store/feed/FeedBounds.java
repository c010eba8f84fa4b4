package dev.cairn.store.feed;

/**
 * The retained range of a tenant's feed: {@code oldest} is the lowest retained seq ({@code high + 1}
 * when nothing is retained), {@code high} the highest seq ever assigned (0 when none).
 */
public record FeedBounds(long oldest, long high, int inserted) {
  public FeedBounds(long oldest, long high) {
    this(oldest, high, 0);
  }

  /** The same bounds, counting the rows just inserted (for the insert meter). */
  public FeedBounds withInserted(int n) {
    return new FeedBounds(oldest, high, n);
  }

  /** An estimate of the retained rows (seq holes make it an upper bound); no COUNT(*). */
  public long rowsEstimate() {
    return Math.max(0, high - oldest + 1);
  }
}
