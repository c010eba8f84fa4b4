package dev.cairn.store.signal;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One pod's part of the seed 003 signal plane on the meta DB, started and stopped as one: the coalesced
 * {@link NotifyOutbox} (written after feed rows land), the 200 ms {@link NotifyPoller} (wakes the local
 * SSE sessions of tenants other pods wrote), the {@link PodRegistry} heartbeat and dead-pod sweep, the
 * {@link NotifyPruner} with its stalled-pod bound, and the optional {@link LivenessPoll}. Construct on
 * the context the callbacks should run on.
 */
public final class SignalPlane {
  private final NotifyOutbox outbox;
  private final NotifyPoller poller;
  private final PodRegistry pods;
  private final NotifyPruner pruner;
  private final LivenessPoll liveness;

  /**
   * @param wake gets the tenants another pod (or this one) wrote since the last poll
   * @param localTenants the tenants this pod serves (woken all at once after a stall)
   */
  public SignalPlane(Vertx vertx, Pool meta, SignalSettings settings, SignalMetrics metrics,
      Consumer<Set<String>> wake, Supplier<Set<String>> localTenants) {
    this.outbox = new NotifyOutbox(vertx, meta, settings, metrics);
    this.liveness = new LivenessPoll(vertx, settings, wake, localTenants);
    this.poller = new NotifyPoller(vertx, meta, settings, metrics, liveness.tracking(), localTenants);
    this.pods = new PodRegistry(vertx, meta, settings, metrics);
    this.pruner = new NotifyPruner(vertx, meta, settings, metrics);
  }

  public Future<Void> start() {
    return pods.start().compose(v -> poller.start()).onSuccess(v -> {
      pruner.start();
      liveness.start();
    });
  }

  /** Feed rows of {@code tenant} landed (a fresh insert or a retry-buffer flush): tell the other pods. */
  public void notify(String tenant) {
    outbox.notify(tenant);
  }

  public NotifyPoller poller() {
    return poller;
  }

  public PodRegistry pods() {
    return pods;
  }

  /** Stops the timers, writes the pending notify rows, then removes this pod's rows. */
  public Future<Void> stop() {
    liveness.stop();
    return pruner.stop().eventually(poller::stop).eventually(outbox::close).eventually(pods::stop);
  }
}
