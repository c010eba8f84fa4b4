package dev.cairn.delivery.outbox;

import io.nats.client.Connection;
import io.nats.client.ConsumeOptions;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.MessageConsumer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Handlers fed from NATS ({@code outbox.backend=nats}). JetStream: the durable pull consumer
 * {@code cairn-handlers}; done acks, a claim held elsewhere naks with a delay to the lease expiry, a
 * failure naks with {@link RetryPolicy#retryBackoff} (JetStream gives up after {@code max_deliver} =
 * {@code outbox.max_attempts}; the final nak logs {@code event exhausted max deliveries}). Core: a queue
 * subscription with no redelivery at all. Messages are processed on delivery's context; acks and naks
 * run on {@code worker}.
 */
final class NatsHandlers {
  private static final Logger LOG = Logger.getLogger(NatsHandlers.class.getName());

  private final Context context;
  private final WorkerExecutor worker;
  private final HandlerRunner runner;
  private final OutboxSettings settings;
  private final OutboxMetrics metrics;
  private MessageConsumer consumer;
  private Dispatcher dispatcher;

  NatsHandlers(Context context, WorkerExecutor worker, HandlerRunner runner, OutboxSettings settings,
      OutboxMetrics metrics) {
    this.context = context;
    this.worker = worker;
    this.runner = runner;
    this.settings = settings;
    this.metrics = metrics;
  }

  /** Starts consuming (blocking jnats calls on the worker). */
  Future<Void> start(Connection nc) {
    if (runner.isEmpty()) {
      LOG.info("outbox: no handler consumes from NATS (search runs in the engine; forward.relays is empty)");
      return Future.succeededFuture();
    }
    return worker.executeBlocking(() -> {
      if (OutboxSettings.CORE.equals(settings.natsMode())) {
        dispatcher = nc.createDispatcher(msg -> context.runOnContext(v -> processCore(msg)));
        dispatcher.subscribe(settings.subjects(), StreamReconciler.CONSUMER);
      } else {
        consumer = nc.getConsumerContext(settings.stream(), StreamReconciler.CONSUMER)
            .consume(ConsumeOptions.builder().batchSize(256).build(),
                msg -> context.runOnContext(v -> processJetStream(msg)));
      }
      return null;
    }, false).mapEmpty();
  }

  /**
   * The handlers' consumer was created anew (the stream was lost and created again): the one consumed so
   * far is gone, so stop consuming it and consume the new one.
   */
  Future<Void> restart(Connection nc) {
    if (runner.isEmpty()) {
      return Future.succeededFuture();
    }
    LOG.warning("outbox: the handlers' JetStream consumer " + settings.stream() + "/" + StreamReconciler.CONSUMER
        + " was created again; consuming from it anew");
    return stop().recover(t -> Future.succeededFuture()).compose(x -> start(nc));
  }

  private void processJetStream(Message msg) {
    OutboxMessage m;
    try {
      m = OutboxMessage.parse(msg.getData());
    } catch (RuntimeException e) {
      LOG.severe("outbox: unreadable JetStream message on " + msg.getSubject() + ", terminated: " + e.getMessage());
      ackLater(msg::term);
      return;
    }
    runner.run(m).onComplete(ar -> {
      HandlerRunner.Outcome o = ar.succeeded() ? ar.result() : HandlerRunner.Outcome.retry(String.valueOf(ar.cause()));
      long delivered = msg.metaData().deliveredCount();
      switch (o.kind()) {
        case DONE -> ackLater(msg::ack);
        case DEFER -> ackLater(() -> msg.nakWithDelay(Duration.ofMillis(
            Math.max(1, o.deferUntil() - System.currentTimeMillis()))));
        case RETRY -> {
          if (delivered >= settings.maxAttempts()) {
            LOG.severe("event exhausted max deliveries: event_id=" + m.eventId() + " type=" + m.type() + " tenant="
                + m.tenant() + " deliveries=" + delivered + " last error: " + o.error());
            metrics.deadLettered(1);
            ackLater(msg::nak);
          } else {
            ackLater(() -> msg.nakWithDelay(RetryPolicy.retryBackoff((int) delivered)));
          }
        }
      }
    });
  }

  private void processCore(Message msg) {
    OutboxMessage m;
    try {
      m = OutboxMessage.parse(msg.getData());
    } catch (RuntimeException e) {
      LOG.severe("outbox: unreadable NATS message on " + msg.getSubject() + ": " + e.getMessage());
      return;
    }
    runner.run(m).onSuccess(o -> {
      if (o.kind() != HandlerRunner.Outcome.Kind.DONE) {
        LOG.warning("outbox: core NATS has no redelivery; event_id=" + m.eventId() + " was not fully handled: "
            + (o.error() == null ? "claim held elsewhere" : o.error()));
      }
    });
  }

  private void ackLater(Runnable ack) {
    worker.executeBlocking(() -> {
      ack.run();
      return null;
    }, false).onFailure(t -> LOG.log(Level.WARNING, "outbox: JetStream ack/nak failed", t));
  }

  Future<Void> stop() {
    return worker.executeBlocking(() -> {
      if (consumer != null) {
        consumer.stop();
      }
      if (dispatcher != null && dispatcher.isActive()) {
        dispatcher.unsubscribe(settings.subjects());
      }
      return null;
    }, false).mapEmpty();
  }
}
