package dev.cairn.nostr;

/**
 * A change-feed request the relay answers with 400; {@link #getMessage()} is the response's error.
 * No stack trace: a malformed cursor is routine client input.
 */
public final class FeedRequestException extends Exception {
  private static final long serialVersionUID = 1L;

  public FeedRequestException(String message) {
    super(message, null, false, false);
  }
}
