package dev.cairn.store.feed;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.ConfigException;
import dev.cairn.config.Durations;
import io.vertx.core.json.JsonObject;
import java.time.Duration;

/**
 * The change feed's settings ({@code feed.*}, {@code sse.*}, {@code shutdown.flush_budget}); every
 * number is the seed's default.
 */
public record FeedSettings(
    Duration retention,
    Duration heartbeatInterval,
    int pageSize,
    Duration insertTimeout,
    int globalCap,
    int tenantCap,
    int flushers,
    int sweepBatch,
    int sweepMaxBatches,
    Duration sweepInterval,
    Duration flushBudget) {

  public static final Duration MAX_AGE_FLOOR = Duration.ofHours(1);
  public static final Duration MAX_AGE_CEILING = Duration.ofHours(24);
  /** Contract: a heartbeat during a long replay at least every this many events ... */
  public static final int REPLAY_HEARTBEAT_EVENTS = 1000;
  /** ... or this often. */
  public static final Duration REPLAY_HEARTBEAT_INTERVAL = Duration.ofSeconds(5);
  /** Phase 2: full pages drained per wake before the catch-up re-arm. */
  public static final int MAX_FULL_PAGES_PER_WAKE = 10;
  public static final long CATCH_UP_MILLIS = 10;
  public static final long ERROR_BACKOFF_INITIAL_MILLIS = 10;
  public static final long ERROR_BACKOFF_MAX_MILLIS = 1000;

  public static FeedSettings from(CairnConfig config) {
    JsonObject raw = config.raw();
    JsonObject feed = raw.getJsonObject("feed", new JsonObject());
    JsonObject buffer = feed.getJsonObject("buffer", new JsonObject());
    JsonObject sse = raw.getJsonObject("sse", new JsonObject());
    FeedSettings s = new FeedSettings(
        Durations.parse("feed.retention", feed.getString("retention", "168h")),
        Durations.parse("sse.heartbeat_interval", sse.getString("heartbeat_interval", "15s")),
        sse.getInteger("page_size", 1000),
        Durations.parse("feed.insert_timeout", feed.getString("insert_timeout", "30s")),
        buffer.getInteger("global_cap", 10_000),
        buffer.getInteger("tenant_cap", 1_000),
        buffer.getInteger("flushers", 8),
        feed.getInteger("sweep_batch", 5_000),
        feed.getInteger("sweep_max_batches", 20),
        Durations.parse("feed.sweep_interval", feed.getString("sweep_interval", "1h")),
        config.shutdownFlushBudget());
    if (s.retention.isZero() || s.heartbeatInterval.isZero() || s.pageSize < 1 || s.globalCap < 1 || s.tenantCap < 1
        || s.flushers < 1 || s.sweepBatch < 1 || s.sweepMaxBatches < 1) {
      throw new ConfigException("feed/sse: retention, heartbeat_interval, page_size, caps, flushers and sweep"
          + " sizes must be positive");
    }
    return s;
  }

  /** Retry max age: the retention clamped to [1 h, 24 h]. */
  public Duration retryMaxAge() {
    if (retention.compareTo(MAX_AGE_FLOOR) < 0) {
      return MAX_AGE_FLOOR;
    }
    return retention.compareTo(MAX_AGE_CEILING) > 0 ? MAX_AGE_CEILING : retention;
  }

  public int insertTimeoutSeconds() {
    return (int) Math.max(1, insertTimeout.toSeconds());
  }
}
