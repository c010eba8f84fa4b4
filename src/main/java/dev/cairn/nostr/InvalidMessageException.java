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
  /** The refused frame was a NIP-77 NEG-* message: answer NEG-ERR rather than CLOSED. */
  private final boolean negentropy;

  public InvalidMessageException(String message) {
    this(message, null, null);
  }

  /**
   * @param eventId the 64-hex id of the refused EVENT when it could be read (answer with OK false)
   * @param subId the subscription id of the refused REQ/COUNT when it could be read (answer CLOSED)
   */
  public InvalidMessageException(String message, String eventId, String subId) {
    this(message, eventId, subId, false);
  }

  private InvalidMessageException(String message, String eventId, String subId, boolean negentropy) {
    super(message, null, false, false);
    this.eventId = eventId;
    this.subId = subId;
    this.negentropy = negentropy;
  }

  /** True when the subscription id is a NIP-77 sync session's: answer {@code ["NEG-ERR", subId, msg]}. */
  public boolean negentropy() {
    return negentropy;
  }

  /** Same reason, for the NIP-77 session {@code subId}. */
  public InvalidMessageException forNegentropy(String subId) {
    return new InvalidMessageException(getMessage(), null, subId, true);
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
    return new InvalidMessageException(getMessage(), eventId, subId, negentropy);
  }

  /** Same reason, tagged with the event it belongs to. */
  public InvalidMessageException withEventId(String eventId) {
    return new InvalidMessageException(getMessage(), eventId, subId, negentropy);
  }
}
