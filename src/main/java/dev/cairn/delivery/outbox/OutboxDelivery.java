package dev.cairn.delivery.outbox;

import dev.cairn.delivery.OutboxReply;
import dev.cairn.store.outbox.OutboxRow;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.Channels;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The outbox part of the delivery node (seed 000), on delivery's event loop: with {@code db} the
 * consumer runs the handlers from the outbox table; with {@code nats} the relay publishes the rows and
 * the handlers consume from NATS. Started from {@code Delivery.startNode}, fed by its inbox.
 */
public final class OutboxDelivery {
  private static final Logger LOG = Logger.getLogger(OutboxDelivery.class.getName());
  /** A stream found missing by a publish is reconciled again at most this often. */
  static final long RECONCILE_AGAIN_MS = 5_000;

  private final Vertx vertx;
  private final Channels channels;
  private final OutboxSettings settings;
  /** The tenants served now (runtime tenants come and go): read at each "wake every tenant". */
  private final java.util.function.Supplier<? extends java.util.Collection<String>> tenants;
  private final OutboxMetrics metrics;
  private DbClient db;
  private OutboxPump pump;
  private ForwardHandler forward;
  private WorkerExecutor natsWorker;
  private NatsLink link;
  private NatsRelay relay;
  private NatsHandlers natsHandlers;
  private boolean reconciling;
  private long reconciledAt;

  public OutboxDelivery(Vertx vertx, Channels channels, OutboxSettings settings,
      java.util.function.Supplier<? extends java.util.Collection<String>> tenants, MeterRegistry registry) {
    this.vertx = vertx;
    this.channels = channels;
    this.settings = settings;
    this.tenants = tenants;
    this.metrics = new OutboxMetrics(registry);
  }

  /** Call on delivery's context. */
  public Future<Void> start() {
    Context context = vertx.getOrCreateContext();
    db = new DbClient(vertx, channels.open("delivery->database-engine(outbox)", Addresses.DATABASE_ENGINE));
    db.start();
    // the NIP-50 index is kept by the engine's search indexer (it reads the outbox rows itself); only
    // handlers with an effect outside the DB run here, and forward only when there is somewhere to forward to
    List<OutboxHandler> external = new ArrayList<>();
    if (!settings.forwardRelays().isEmpty()) {
      forward = new ForwardHandler(vertx, settings.forwardRelays());
      external.add(forward);
    }
    HandlerRunner runner = new HandlerRunner(external, db, metrics, settings.ledgerLeaseMs());
    if (OutboxSettings.DB.equals(settings.backend())) {
      DbOutboxConsumer consumer = new DbOutboxConsumer(db, runner, settings, metrics);
      pump = new OutboxPump(vertx, consumer::cycle);
      tenants.get().forEach(pump::wake); // rows left from before a restart
      return Future.succeededFuture();
    }
    natsWorker = vertx.createSharedWorkerExecutor("cairn-nats-" + UUID.randomUUID(), 2);
    natsHandlers = new NatsHandlers(context, natsWorker, runner, settings, metrics);
    link = new NatsLink(context, natsWorker, settings.natsUrl(), this::natsUp);
    metrics.natsConnected(link::connectedFlag);
    relay = new NatsRelay(context, natsWorker, db, link, settings, metrics, this::streamMissing);
    pump = new OutboxPump(vertx, relay::cycle);
    LOG.info("outbox: backend nats (" + settings.natsMode() + ") at " + settings.natsUrl()
        + "; rows wait in the outbox until it is reachable");
    return link.start();
  }

  /**
   * NATS is reachable: reconcile the stream and consumer (on every connect: a broker restarted without
   * its store has neither), on the first connect start the handlers; then relay every tenant.
   */
  private void natsUp(boolean first) {
    relay.resetBackoff();
    Future<Void> ready = reconcile().compose(created -> first ? natsHandlers.start(link.connection())
        : created ? natsHandlers.restart(link.connection()) : Future.succeededFuture());
    ready.onFailure(t -> LOG.log(Level.SEVERE, "outbox: could not set up the NATS stream/consumer; relaying anyway", t))
        .onComplete(x -> tenants.get().forEach(pump::wake));
  }

  /**
   * JetStream: creates or updates the stream and the handlers' consumer (blocking calls on the worker);
   * completes with whether the consumer was created (false in core mode).
   */
  private Future<Boolean> reconcile() {
    if (!OutboxSettings.JETSTREAM.equals(settings.natsMode())) {
      return Future.succeededFuture(false);
    }
    reconciling = true;
    reconciledAt = System.currentTimeMillis();
    return natsWorker.executeBlocking(() -> StreamReconciler.reconcile(link.connection().jetStreamManagement(),
        settings.stream(), settings.subjects(), settings.maxAttempts(), settings.streamMaxAge()).consumerCreated(),
        false).eventually(() -> {
      reconciling = false;
      return Future.succeededFuture();
    });
  }

  /**
   * A publish was answered "no responders": no stream takes the outbox's subjects (deleted by hand, or
   * the broker lost its store while this process stayed connected). Reconciles again, at most every
   * {@link #RECONCILE_AGAIN_MS}; the rows wait, deferred without spending an attempt, and go once it is back.
   */
  private void streamMissing() {
    if (reconciling || System.currentTimeMillis() - reconciledAt < RECONCILE_AGAIN_MS) {
      return;
    }
    LOG.severe("outbox: JetStream has no stream for " + settings.subjects() + " (a publish was answered 503 no"
        + " responders: stream " + settings.stream() + " deleted, or the broker lost its store); creating it again");
    reconcile().compose(created -> created ? natsHandlers.restart(link.connection()) : Future.succeededFuture())
        .onFailure(t -> LOG.log(Level.SEVERE, "outbox: could not create the NATS stream/consumer again;"
            + " rows wait in the outbox and the next failed publish tries again", t))
        .onSuccess(x -> {
          relay.resetBackoff();
          tenants.get().forEach(pump::wake);
        });
  }

  /** database-engine committed new outbox rows for {@code tenant}. */
  public void wake(String tenant) {
    if (pump != null) {
      pump.wake(tenant);
    }
  }

  /**
   * database-engine committed rows already claimed by this process (outbox.backend=nats): relayed now;
   * the claim loop looks again when some had to wait (deferred or handed back).
   */
  public void claimed(String tenant, List<OutboxRow> rows) {
    if (relay == null || pump == null) {
      LOG.warning("outbox: " + rows.size() + " claimed row(s) of tenant " + tenant + " but no relay runs;"
          + " they are claimed again after the lease");
      return;
    }
    relay.relayClaimed(tenant, rows).onComplete(ar -> {
      if (ar.failed() || ar.result() >= 0) {
        pump.wake(tenant);
      }
    });
  }

  /** database-engine answered an outbox request. */
  public void answer(OutboxReply reply) {
    db.answer(reply);
  }

  public Future<Void> stop() {
    if (pump != null) {
      pump.stop();
    }
    if (db != null) {
      db.stop();
    }
    if (forward != null) {
      forward.close();
    }
    if (link == null) {
      return Future.succeededFuture();
    }
    return natsHandlers.stop().recover(t -> Future.succeededFuture()).compose(x -> link.close())
        .eventually(() -> natsWorker.close());
  }
}
