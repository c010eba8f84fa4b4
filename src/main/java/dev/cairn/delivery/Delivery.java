package dev.cairn.delivery;

import dev.cairn.delivery.feed.FeedSessions;
import dev.cairn.delivery.outbox.OutboxDelivery;
import dev.cairn.delivery.outbox.OutboxSettings;
import dev.cairn.store.feed.FeedMetrics;
import dev.cairn.store.feed.FeedSettings;
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
  /** Seed 003: the SSE feed sessions and their settings/meters. */
  private FeedSessions feedSessions;
  private FeedSettings feedSettings;
  private FeedMetrics feedMetrics;

  /** Seed 000: the outbox relay/consumer and what it is built from. */
  private OutboxDelivery outbox;
  private OutboxSettings outboxSettings;
  private java.util.function.Supplier<? extends java.util.Collection<String>> outboxTenants;
  private io.micrometer.core.instrument.MeterRegistry outboxRegistry;

  public Delivery(Channels channels, CrashReporter root) {
    super(root);
    this.channels = channels;
  }

  /** Seed 003: the change feed's settings and meters; call before deploying. */
  public Delivery withFeed(FeedSettings settings, FeedMetrics metrics) {
    this.feedSettings = settings;
    this.feedMetrics = metrics;
    return this;
  }

  /** Seed 000: the outbox's settings, the tenants it serves and the meter registry; call before deploying. */
  public Delivery withOutbox(OutboxSettings settings,
      java.util.function.Supplier<? extends java.util.Collection<String>> tenants,
      io.micrometer.core.instrument.MeterRegistry registry) {
    this.outboxSettings = settings;
    this.outboxTenants = tenants;
    this.outboxRegistry = registry;
    return this;
  }

  @Override
  protected Future<?> startNode() {
    feedSessions = new FeedSessions(vertx, channels, feedSettings, feedMetrics);
    new Inbox<>(vertx, Addresses.DELIVERY, DeliveryInbox.class, this::handle);
    if (outboxSettings == null) {
      return Future.succeededFuture();
    }
    outbox = new OutboxDelivery(vertx, channels, outboxSettings, outboxTenants,
        outboxRegistry);
    return outbox.start();
  }

  @Override
  public Future<?> stop() {
    return outbox == null ? Future.succeededFuture() : outbox.stop();
  }

  private void handle(DeliveryInbox msg) {
    if (msg instanceof DeliveryInbox.OutboxWake w) {
      if (outbox != null) {
        outbox.wake(w.tenant());
      }
    } else if (msg instanceof DeliveryInbox.OutboxClaimed c) {
      if (outbox != null) {
        outbox.claimed(c.tenant(), c.rows());
      }
    } else if (msg instanceof OutboxReply r) {
      if (outbox != null) {
        outbox.answer(r);
      }
    } else if (msg instanceof DeliveryInbox.FeedWake w) {
      feedSessions.wake(w);
    } else if (msg instanceof FeedInbox f) {
      feedSessions.handle(f);
    }
  }
}
