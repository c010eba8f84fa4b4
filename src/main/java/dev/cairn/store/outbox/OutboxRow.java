package dev.cairn.store.outbox;

/**
 * One claimed outbox row: {@code claimedAt} (ms) is the claim's owner token for settling it; {@code seq}
 * the store seq its domain event is about; {@code localError} why a local handler failed on it (null:
 * none did); {@code localDone} whether the local handlers are done with it already (a claim taken over
 * after a crash does not run them again).
 */
public record OutboxRow(long id, String eventId, String type, String body, int attempts, long claimedAt, long seq,
    String localError, boolean localDone) {

  public OutboxRow(long id, String eventId, String type, String body, int attempts, long claimedAt) {
    this(id, eventId, type, body, attempts, claimedAt, 0, null, false);
  }

  OutboxRow failedLocally(String error) {
    return new OutboxRow(id, eventId, type, body, attempts, claimedAt, seq, error, false);
  }
}
