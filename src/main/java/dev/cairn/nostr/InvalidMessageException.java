package dev.cairn.nostr;

/**
 * A client frame the relay must refuse. {@link #getMessage()} is ready to send as the NIP-01
 * reason (it always starts with a machine-readable prefix such as {@code invalid:}).
 *
 * <p>No stack trace: bad input is routine on a public relay and must stay cheap to reject.
 */
public final class InvalidMessageException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String eventId;
  private final String subId;

  public InvalidMessageException(String message) {
    this(message, null, null);
  }

  /**
   * @param eventId the 64-hex id of the refused EVENT when it could be read (answer with OK false)
   * @param subId the subscription id of the refused REQ/COUNT when it could be read (answer CLOSED)
   */
  public InvalidMessageException(String message, String eventId, String subId) {
    super(message, null, false, false);
    this.eventId = eventId;
    this.subId = subId;
  }

  /** The event id to answer {@code ["OK", id, false, msg]} with, or null. */
  public String eventId() {
    return eventId;
  }

  /** The subscription id to answer {@code ["CLOSED", subId, msg]} with, or null. */
  public String subId() {
    return subId;
  }

  /** Same reason, tagged with the subscription it belongs to. */
  public InvalidMessageException withSubId(String subId) {
    return new InvalidMessageException(getMessage(), eventId, subId);
  }

  /** Same reason, tagged with the event it belongs to. */
  public InvalidMessageException withEventId(String eventId) {
    return new InvalidMessageException(getMessage(), eventId, subId);
  }
}
