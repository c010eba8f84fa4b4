package dev.cairn.delivery;

import dev.cairn.store.outbox.OutboxRow;
import dev.cairn.tree.TreeMessage;
import java.util.List;

/**
 * delivery's inbox: wakes from database-engine (new outbox rows, new feed rows) and, for the SSE
 * feed, stream events from the listeners. Grows with the outbox (seed 000) and the feed (seed 003).
 */
public sealed interface DeliveryInbox extends TreeMessage
    permits DeliveryInbox.OutboxWake, DeliveryInbox.OutboxClaimed, DeliveryInbox.FeedWake, OutboxReply, FeedInbox {
  /** New outbox rows were committed for the tenant: the relay/consumer should look for due rows. */
  record OutboxWake(String tenant) implements DeliveryInbox {}

  /**
   * New outbox rows were committed for the tenant already claimed by this process, with their bodies
   * ({@code outbox.backend=nats}): the relay publishes them as they are, no claim transaction first.
   */
  record OutboxClaimed(String tenant, List<OutboxRow> rows) implements DeliveryInbox {
    public OutboxClaimed {
      rows = List.copyOf(rows);
    }
  }

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
