package dev.cairn.store.outbox;

/**
 * One claimed outbox row: {@code body} is the message body as UTF-8 JSON, as it is published (empty when
 * claimed without it); {@code claimedAt} (ms) is the claim's owner token for settling it; {@code seq}
 * the store seq its domain event is about.
 */
public record OutboxRow(long id, String eventId, String type, byte[] body, int attempts, long claimedAt, long seq) {

  public OutboxRow(long id, String eventId, String type, byte[] body, int attempts, long claimedAt) {
    this(id, eventId, type, body, attempts, claimedAt, 0);
  }
}
