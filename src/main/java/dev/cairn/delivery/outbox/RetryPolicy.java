package dev.cairn.delivery.outbox;

import java.time.Duration;

/**
 * The one retry schedule of both backends (seed 000): after the n-th failed attempt the next one is
 * due in 5 s doubling per attempt, capped at 300 s (5, 10, 20, 40, 80, 160, 300, 300, ...). The db
 * queue's {@code available_at} and JetStream's {@code nak} delay both come from {@link #retryBackoff}.
 */
public final class RetryPolicy {
  public static final Duration BASE = Duration.ofSeconds(5);
  public static final Duration CAP = Duration.ofSeconds(300);
  /** Transport (bus unreachable) deferral: 1 s doubling, capped at 30 s; never spends an attempt. */
  static final Duration OUTAGE_BASE = Duration.ofSeconds(1);
  static final Duration OUTAGE_CAP = Duration.ofSeconds(30);

  private RetryPolicy() {}

  /** The delay after failed attempt number {@code attempt} (1-based). */
  public static Duration retryBackoff(int attempt) {
    return doubling(BASE, CAP, attempt);
  }

  /**
   * The deferral of the {@code streak}-th round of consecutive transport failures (1-based): the batches
   * that fail together during one round are one failure (NatsRelay.deferral).
   */
  public static Duration outageBackoff(int streak) {
    return doubling(OUTAGE_BASE, OUTAGE_CAP, streak);
  }

  private static Duration doubling(Duration base, Duration cap, int n) {
    int shift = Math.max(0, Math.min(n - 1, 30));
    long ms = base.toMillis() << shift;
    return Duration.ofMillis(Math.min(ms, cap.toMillis()));
  }
}
