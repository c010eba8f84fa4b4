package dev.cairn.policy;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A token bucket per key (an IP or a pubkey), refilled continuously at {@code perSecond} up to
 * {@code burst}. Memory is bounded: at most {@code maxKeys} buckets, the least recently used one
 * is forgotten first (it is, most likely, full again anyway). Owned by the policy node alone.
 */
final class TokenBuckets {
  static final int MAX_KEYS = 100_000;

  private final double perSecond;
  private final double burst;
  private final Map<String, Bucket> buckets;

  private static final class Bucket {
    double tokens;
    long at;

    Bucket(double tokens, long at) {
      this.tokens = tokens;
      this.at = at;
    }
  }

  TokenBuckets(double perSecond, double burst) {
    this(perSecond, burst, MAX_KEYS);
  }

  TokenBuckets(double perSecond, double burst, int maxKeys) {
    if (perSecond <= 0 || burst < 1) {
      throw new IllegalArgumentException("a bucket needs a positive rate and a burst of at least 1");
    }
    this.perSecond = perSecond;
    this.burst = burst;
    this.buckets = new LinkedHashMap<>(64, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Bucket> eldest) {
        return size() > maxKeys;
      }
    };
  }

  /** Takes one token from {@code key}'s bucket; false when it is empty. */
  boolean tryAcquire(String key, long nowNanos) {
    Bucket b = buckets.get(key);
    if (b == null) {
      b = new Bucket(burst, nowNanos);
      buckets.put(key, b);
    }
    double tokens = Math.min(burst, b.tokens + Math.max(0, nowNanos - b.at) / 1e9 * perSecond);
    b.at = nowNanos;
    if (tokens < 1) {
      b.tokens = tokens;
      return false;
    }
    b.tokens = tokens - 1;
    return true;
  }

  int size() {
    return buckets.size();
  }
}
