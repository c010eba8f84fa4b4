package dev.cairn.config;

import io.vertx.core.json.JsonObject;

/** The relay limits of CONTRACT section 3; every one is also published in NIP-11 {@code limitation}. */
public record Limits(
    int maxMessageLength,
    int maxSubscriptions,
    /** {@code limits.queries_per_connection}: one connection's REQs and COUNTs on their way to the store at once. */
    int queriesPerConnection,
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
    /** {@code limits.max_outbound_messages}: messages waiting for all of one listener's WebSocket clients. */
    long maxOutboundMessages,
    /** {@code limits.max_queued_answer_bytes}: answers waiting for all of one listener's WebSocket clients. */
    long maxQueuedAnswerBytes,
    int negentropyMaxSessions,
    int negentropyMaxRecords,
    long negentropyMaxRecordsTotal,
    long negentropyIdleTimeoutMillis,
    int negentropyFrameSizeLimit,
    /** {@code limits.query_budget}: wall time one history query may run in SQLite; 0 = no budget. */
    long queryBudgetMillis,
    /** {@code limits.heap_budget_bytes}: heap the process keeps committed when the JVM got no -Xmx; 0 = off. */
    long heapBudgetBytes) {

  static Limits from(JsonObject j) {
    return new Limits(
        j.getInteger("max_message_length"),
        j.getInteger("max_subscriptions"),
        // not in NIP-11: more queries are not refused, they wait on their connection
        atLeast("limits.queries_per_connection", j.getInteger("queries_per_connection"), 1),
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
        // not in NIP-11: a memory bound per listener, see dev.cairn.network.OutboundBudget
        positive("limits.max_outbound_messages", j.getLong("max_outbound_messages")),
        // not in NIP-11: a memory bound per listener, see dev.cairn.network.AnswerBudget
        positive("limits.max_queued_answer_bytes", j.getLong("max_queued_answer_bytes")),
        atLeast("limits.negentropy_max_sessions", j.getInteger("negentropy_max_sessions"), 1),
        atLeast("limits.negentropy_max_records", j.getInteger("negentropy_max_records"), 1),
        // not in NIP-11: a relay-wide memory bound, nothing a client can plan with
        positive("limits.negentropy_max_records_total", j.getLong("negentropy_max_records_total")),
        Durations.parse("limits.negentropy_idle_timeout", j.getString("negentropy_idle_timeout")).toMillis(),
        // the reference refuses frame size limits under 4096 bytes (200 of them are headroom)
        atLeast("limits.negentropy_frame_size_limit", j.getInteger("negentropy_frame_size_limit"), 4096),
        Durations.parse("limits.query_budget", j.getString("query_budget")).toMillis(),
        // not in NIP-11: the process's memory, see dev.cairn.HeapBudget
        atLeast("limits.heap_budget_bytes", j.getLong("heap_budget_bytes"), 0L));
  }

  private static long atLeast(String key, Long v, long min) {
    if (v == null || v < min) {
      throw new ConfigException(key + " must be at least " + min + ", got " + v);
    }
    return v;
  }

  private static int atLeast(String key, Integer v, int min) {
    if (v == null || v < min) {
      throw new ConfigException(key + " must be at least " + min + ", got " + v);
    }
    return v;
  }

  /** The query budget as the config spells durations ({@code 3s}, {@code 250ms}), for client messages. */
  public String queryBudgetText() {
    return queryBudgetMillis % 1000 == 0 ? queryBudgetMillis / 1000 + "s" : queryBudgetMillis + "ms";
  }

  private static long positive(String key, Long v) {
    if (v == null || v <= 0) {
      throw new ConfigException(key + " must be a positive number, got " + v);
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
        .put("created_at_upper_limit", createdAtUpper)
        .put("negentropy_max_sessions", negentropyMaxSessions)
        .put("negentropy_max_records", negentropyMaxRecords)
        .put("negentropy_idle_timeout", negentropyIdleTimeoutMillis / 1000)
        .put("negentropy_frame_size_limit", negentropyFrameSizeLimit);
  }
}
