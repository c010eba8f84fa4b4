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

  /**
   * New feed rows exist for the tenant up to {@code highSeq}: connected SSE sessions drain them.
   * {@link #UNKNOWN_HIGH}: another pod wrote (a signal-plane hint, no seq known): each live session
   * reads one page after its cursor; a short page disarms it again.
   */
  record FeedWake(String tenant, long highSeq) implements DeliveryInbox {
    public static final long UNKNOWN_HIGH = -1;

    /** A hint from the signal plane (seed 003 section 4): rows may exist, their seqs are not known here. */
    public static FeedWake hint(String tenant) {
      return new FeedWake(tenant, UNKNOWN_HIGH);
    }
  }
}
