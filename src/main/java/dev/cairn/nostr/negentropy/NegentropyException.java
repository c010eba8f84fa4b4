package dev.cairn.nostr.negentropy;

/**
 * A message from the peer that cannot be processed: malformed (truncated, unknown mode, oversized
 * bound) or in a protocol version this side cannot speak. The session should end: the relay answers
 * {@code NEG-ERR}. The message is human-readable and carries no machine prefix; the caller picks
 * one.
 *
 * <p>No stack trace: bad input from a peer is routine and must stay cheap to reject.
 */
public final class NegentropyException extends Exception {
  private static final long serialVersionUID = 1L;

  public NegentropyException(String message) {
    super(message, null, false, false);
  }
}
