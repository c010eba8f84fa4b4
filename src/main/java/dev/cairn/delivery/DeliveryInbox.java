package dev.cairn.delivery;

import dev.cairn.tree.TreeMessage;

/**
 * delivery's inbox: wakes from database-engine (new outbox rows, new feed rows) and, for the SSE
 * feed, stream events from the listeners. Grows with the outbox (seed 000) and the feed (seed 003).
 */
public sealed interface DeliveryInbox extends TreeMessage
    permits DeliveryInbox.OutboxWake, DeliveryInbox.FeedWake, OutboxReply, FeedInbox {
  /** New outbox rows were committed for the tenant: the relay/consumer should look for due rows. */
  record OutboxWake(String tenant) implements DeliveryInbox {}

  /** New feed rows exist for the tenant up to {@code highSeq}: connected SSE sessions drain them. */
  record FeedWake(String tenant, long highSeq) implements DeliveryInbox {}
}
