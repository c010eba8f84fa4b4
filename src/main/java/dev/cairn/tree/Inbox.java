package dev.cairn.tree;

import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.function.Consumer;

/**
 * The receiving end of a node: one address, one sealed message type. Credit goes back to the
 * sending channel after the handler returns, unless the handler {@link #hold() holds} it because it
 * could not pass the message on yet (its own downstream channel is full). An optional
 * {@code afterDelivery} action runs once after each delivery's messages (all those a sender sent in
 * one task): a node that writes to sockets flushes there, once per delivery instead of per message.
 */
public final class Inbox<M extends TreeMessage> {
  private final MessageConsumer<Object> consumer;
  private final Class<M> type;
  private BoundedChannel<?> current;
  private boolean held;

  public Inbox(Vertx vertx, String address, Class<M> type, Consumer<M> handler) {
    this(vertx, address, type, handler, null);
  }

  public Inbox(Vertx vertx, String address, Class<M> type, Consumer<M> handler, Runnable afterDelivery) {
    this.type = type;
    this.consumer =
        vertx
            .eventBus()
            .localConsumer(
                address,
                msg -> {
                  Delivery d = (Delivery) msg.body();
                  current = d.channel();
                  try {
                    for (Object payload : d.payloads()) {
                      held = false;
                      try {
                        handler.accept(this.type.cast(payload));
                      } finally {
                        if (!held) {
                          d.channel().returnCredit();
                        }
                      }
                    }
                  } finally {
                    current = null;
                    if (afterDelivery != null) {
                      afterDelivery.run();
                    }
                  }
                });
  }

  /**
   * Keeps the credit of the message being handled; the returned action gives it back. Call only
   * from inside the handler.
   */
  public Runnable hold() {
    BoundedChannel<?> ch = current;
    held = true;
    return ch::returnCredit;
  }

  public io.vertx.core.Future<Void> close() {
    return consumer.unregister();
  }
}
