package dev.cairn.store.outbox;

/**
 * What becomes of one claimed row, applied only while the claim is still ours ({@code claimedAt}).
 * DONE: delivered. RETRY: back to pending at {@code availableAt} with {@code attempts} spent.
 * DEAD_LETTER: the last attempt failed. DEFER: back to pending at {@code availableAt}, no attempt spent
 * (a fresh ledger claim held elsewhere, or the bus unreachable).
 */
public record Settlement(long rowId, long claimedAt, Kind kind, int attempts, long availableAt, String error) {
  public enum Kind { DONE, RETRY, DEAD_LETTER, DEFER }

  public static Settlement done(OutboxRow r) {
    return new Settlement(r.id(), r.claimedAt(), Kind.DONE, r.attempts(), 0, null);
  }

  public static Settlement defer(OutboxRow r, long availableAt, String why) {
    return new Settlement(r.id(), r.claimedAt(), Kind.DEFER, r.attempts(), availableAt, why);
  }

  public static Settlement retry(OutboxRow r, long availableAt, String error) {
    return new Settlement(r.id(), r.claimedAt(), Kind.RETRY, r.attempts() + 1, availableAt, error);
  }

  public static Settlement deadLetter(OutboxRow r, String error) {
    return new Settlement(r.id(), r.claimedAt(), Kind.DEAD_LETTER, r.attempts() + 1, 0, error);
  }
}
