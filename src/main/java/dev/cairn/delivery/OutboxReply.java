package dev.cairn.delivery;

import dev.cairn.store.outbox.LedgerClaim;
import dev.cairn.store.outbox.OutboxQueue;

/** database-engine's answers to {@code store.OutboxCommand}; {@code error} is non-null when the work failed. */
public sealed interface OutboxReply extends DeliveryInbox {
  long requestId();

  String error();

  record Claimed(long requestId, OutboxQueue.Claim claim, String error) implements OutboxReply {}

  record Settled(long requestId, int left, int deadLettered, String error) implements OutboxReply {}

  record LedgerClaimed(long requestId, LedgerClaim claim, String error) implements OutboxReply {}

  record LedgerFinished(long requestId, boolean changed, String error) implements OutboxReply {}

}
