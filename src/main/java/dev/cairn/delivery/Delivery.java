package dev.cairn.delivery;

import dev.cairn.tree.Addresses;
import dev.cairn.tree.Channels;
import dev.cairn.tree.Inbox;
import dev.cairn.tree.Supervised;
import io.vertx.core.Future;

/**
 * The delivery node: outbox relay + outbox consumer (seed 000) and the SSE feed sessions (seed 003),
 * on one non-blocking loop. It never touches a DB itself: reads and writes go to database-engine.
 */
public final class Delivery extends Supervised {
  private final Channels channels;

  public Delivery(Channels channels, CrashReporter root) {
    super(root);
    this.channels = channels;
  }

  @Override
  protected Future<?> startNode() {
    new Inbox<>(vertx, Addresses.DELIVERY, DeliveryInbox.class, this::handle);
    return Future.succeededFuture();
  }

  private void handle(DeliveryInbox msg) {
    if (msg instanceof DeliveryInbox.OutboxWake w) {
      // outbox relay/consumer: seed 000 (issue 3)
    } else if (msg instanceof DeliveryInbox.FeedWake w) {
      // SSE sessions: seed 003 (issue 5)
    }
  }
}
