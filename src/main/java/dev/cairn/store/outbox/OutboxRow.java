package dev.cairn.store.outbox;

/** One claimed outbox row: {@code claimedAt} (ms) is the claim's owner token for settling it. */
public record OutboxRow(long id, String eventId, String type, String body, int attempts, long claimedAt) {}
