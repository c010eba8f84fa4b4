package dev.cairn.policy;

import dev.cairn.config.PolicyConfig;
import dev.cairn.config.PolicyConfig.Rate;

/**
 * The token buckets of one tenant: events per IP and per pubkey, the free-write limiter
 * ({@code policy.writes_per_second}, per pubkey, burst 10x), REQs per IP and new connections per
 * IP. A rate that is off has no buckets. Reconfiguring keeps the buckets of every unchanged rate.
 * IPs are counted by {@link IpKey} (IPv6 by /64); an unknown IP (null) is not limited per IP.
 */
final class RateLimits {
  private final Rate eventsPerIpRate;
  private final Rate eventsPerPubkeyRate;
  private final double writesPerSecond;
  private final Rate reqsPerIpRate;
  private final Rate connectionsPerIpRate;
  private final TokenBuckets eventsPerIp;
  private final TokenBuckets eventsPerPubkey;
  private final TokenBuckets writesPerPubkey;
  private final TokenBuckets reqsPerIp;
  private final TokenBuckets connectionsPerIp;

  private RateLimits(PolicyConfig.TenantPolicy p, RateLimits previous) {
    eventsPerIpRate = p.eventsPerIp();
    eventsPerPubkeyRate = p.eventsPerPubkey();
    writesPerSecond = p.writesPerSecond();
    reqsPerIpRate = p.reqsPerIp();
    connectionsPerIpRate = p.connectionsPerIp();
    boolean keep = previous != null;
    eventsPerIp = keep && previous.eventsPerIpRate.equals(eventsPerIpRate) ? previous.eventsPerIp : buckets(eventsPerIpRate);
    eventsPerPubkey = keep && previous.eventsPerPubkeyRate.equals(eventsPerPubkeyRate)
        ? previous.eventsPerPubkey : buckets(eventsPerPubkeyRate);
    writesPerPubkey = keep && previous.writesPerSecond == writesPerSecond ? previous.writesPerPubkey
        : writesPerSecond > 0 ? new TokenBuckets(writesPerSecond, Math.max(1, writesPerSecond * 10)) : null;
    reqsPerIp = keep && previous.reqsPerIpRate.equals(reqsPerIpRate) ? previous.reqsPerIp : buckets(reqsPerIpRate);
    connectionsPerIp = keep && previous.connectionsPerIpRate.equals(connectionsPerIpRate)
        ? previous.connectionsPerIp : buckets(connectionsPerIpRate);
  }

  /** The limits of {@code p}, reusing {@code previous}'s buckets (null: none) where the rate did not change. */
  static RateLimits of(PolicyConfig.TenantPolicy p, RateLimits previous) {
    return new RateLimits(p, previous);
  }

  private static TokenBuckets buckets(Rate r) {
    return r.enabled() ? new TokenBuckets(r.perSecond(), r.burst()) : null;
  }

  /** The rule an event breaks (events_per_ip, events_per_pubkey, writes_per_second), or null. */
  Verdict event(String ip, String pubkey, long nowNanos) {
    String ipKey = eventsPerIp == null ? null : IpKey.of(ip);
    if (ipKey != null && !eventsPerIp.tryAcquire(ipKey, nowNanos)) {
      return Verdict.reject("events_per_ip", "rate-limited: slow down, too many events from your IP address");
    }
    if (eventsPerPubkey != null && !eventsPerPubkey.tryAcquire(pubkey, nowNanos)) {
      return Verdict.reject("events_per_pubkey", "rate-limited: slow down, too many events from this pubkey");
    }
    if (writesPerPubkey != null && !writesPerPubkey.tryAcquire(pubkey, nowNanos)) {
      return Verdict.reject("writes_per_second", "rate-limited: slow down, too many events from this pubkey");
    }
    return null;
  }

  Verdict req(String ip, long nowNanos) {
    String ipKey = reqsPerIp == null ? null : IpKey.of(ip);
    if (ipKey != null && !reqsPerIp.tryAcquire(ipKey, nowNanos)) {
      return Verdict.reject("reqs_per_ip", "rate-limited: too many REQs from your IP address, slow down");
    }
    return null;
  }

  Verdict connection(String ip, long nowNanos) {
    String ipKey = connectionsPerIp == null ? null : IpKey.of(ip);
    if (ipKey != null && !connectionsPerIp.tryAcquire(ipKey, nowNanos)) {
      return Verdict.reject("connections_per_ip", "rate-limited: too many new connections from your IP address");
    }
    return null;
  }
}
