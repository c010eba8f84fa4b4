package dev.cairn.policy;

import java.util.HashMap;
import java.util.Map;

/**
 * The free-write limiter: a token bucket per (tenant, pubkey), refilled continuously. Owned by
 * the policy node alone; idle buckets are forgotten once full again so memory follows activity.
 */
final class WriteRateLimiter {
  private final double perSecond;
  private final double burst;
  private final Map<String, double[]> buckets = new HashMap<>();

  WriteRateLimiter(double perSecond, double burst) {
    this.perSecond = perSecond;
    this.burst = burst;
  }

  boolean enabled() {
    return perSecond > 0;
  }

  /** Takes one token; false when the bucket is empty. */
  boolean tryAcquire(String key, long nowNanos) {
    double[] b = buckets.computeIfAbsent(key, k -> new double[] {burst, nowNanos});
    double tokens = Math.min(burst, b[0] + (nowNanos - b[1]) / 1e9 * perSecond);
    b[1] = nowNanos;
    if (tokens < 1) {
      b[0] = tokens;
      return false;
    }
    b[0] = tokens - 1;
    if (buckets.size() > 100_000) {
      buckets.values().removeIf(x -> x[0] >= burst - 1);
    }
    return true;
  }
}
