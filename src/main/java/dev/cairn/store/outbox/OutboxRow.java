package dev.cairn.store.outbox;

/**
 * One claimed outbox row: {@code claimedAt} (ms) is the claim's owner token for settling it; {@code seq}
 * the store seq its domain event is about.
 */
public record OutboxRow(long id, String eventId, String type, String body, int attempts, long claimedAt, long seq) {

  public OutboxRow(long id, String eventId, String type, String body, int attempts, long claimedAt) {
    this(id, eventId, type, body, attempts, claimedAt, 0);
  }
}
