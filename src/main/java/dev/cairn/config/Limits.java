package dev.cairn.config;

import io.vertx.core.json.JsonObject;

/** The relay limits of CONTRACT section 3; every one is also published in NIP-11 {@code limitation}. */
public record Limits(
    int maxMessageLength,
    int maxSubscriptions,
    int maxFilters,
    int maxLimit,
    int defaultLimit,
    int maxSubidLength,
    int maxEventTags,
    int maxContentLength,
    int minPowDifficulty,
    boolean authRequired,
    boolean restrictedWrites,
    long createdAtLower,
    long createdAtUpper,
    long slowConsumerTimeoutMillis,
    long maxOutboundBytes,
    /** {@code limits.query_budget}: wall time one history query may run in SQLite; 0 = no budget. */
    long queryBudgetMillis) {

  static Limits from(JsonObject j) {
    return new Limits(
        j.getInteger("max_message_length"),
        j.getInteger("max_subscriptions"),
        j.getInteger("max_filters"),
        j.getInteger("max_limit"),
        j.getInteger("default_limit"),
        j.getInteger("max_subid_length"),
        j.getInteger("max_event_tags"),
        j.getInteger("max_content_length"),
        j.getInteger("min_pow_difficulty"),
        j.getBoolean("auth_required"),
        j.getBoolean("restricted_writes"),
        j.getLong("created_at_lower"),
        j.getLong("created_at_upper"),
        Durations.parse("limits.slow_consumer_timeout", j.getString("slow_consumer_timeout")).toMillis(),
        positive("limits.max_outbound_bytes", j.getLong("max_outbound_bytes")),
        Durations.parse("limits.query_budget", j.getString("query_budget")).toMillis());
  }

  /** The query budget as the config spells durations ({@code 3s}, {@code 250ms}), for client messages. */
  public String queryBudgetText() {
    return queryBudgetMillis % 1000 == 0 ? queryBudgetMillis / 1000 + "s" : queryBudgetMillis + "ms";
  }

  private static long positive(String key, Long v) {
    if (v == null || v <= 0) {
      throw new ConfigException(key + " must be a positive number of bytes, got " + v);
    }
    return v;
  }

  /** NIP-11 {@code limitation} object. */
  public JsonObject toNip11() {
    return new JsonObject()
        .put("max_message_length", maxMessageLength)
        .put("max_subscriptions", maxSubscriptions)
        .put("max_filters", maxFilters)
        .put("max_limit", maxLimit)
        .put("default_limit", defaultLimit)
        .put("max_subid_length", maxSubidLength)
        .put("max_event_tags", maxEventTags)
        .put("max_content_length", maxContentLength)
        .put("min_pow_difficulty", minPowDifficulty)
        .put("auth_required", authRequired)
        .put("payment_required", false)
        .put("restricted_writes", restrictedWrites)
        .put("created_at_lower_limit", createdAtLower)
        .put("created_at_upper_limit", createdAtUpper);
  }
}
