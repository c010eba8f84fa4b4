package dev.cairn.store.outbox;

/** The outcome of claiming {@code (event_id, handler)} in the processed-event ledger. */
public sealed interface LedgerClaim {
  /** Ours: run the handler, then mark done or release with this owner token. */
  record Claimed(long startedAt) implements LedgerClaim {}

  /** The handler already ran for this event: skip it. */
  record AlreadyDone() implements LedgerClaim {}

  /** A fresh claim is held elsewhere until {@code untilMs}: defer without spending an attempt. */
  record HeldElsewhere(long untilMs) implements LedgerClaim {}
}
