package dev.cairn.sig;

import dev.cairn.root.RootInbox;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Channels;
import dev.cairn.tree.Child;
import dev.cairn.tree.Inbox;
import dev.cairn.tree.Supervised;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Fan-out point for signature checks: each Verify goes to the sig-worker with the most credit left.
 * Owns M worker verticles (worker threading model, pure compute) and redeploys one that crashes,
 * failing back what it had in flight.
 */
public final class SigManager extends Supervised {
  private static final Logger LOG = Logger.getLogger(SigManager.class.getName());

  private final int workerCount;
  private final Channels channels;
  private final Timer verifyTimer;
  private final List<Worker> workers = new ArrayList<>();
  private BoundedChannel<RootInbox> toRoot;
  private Inbox<SigInbox> inbox;
  private int next;

  private static final class Worker {
    final int index;
    BoundedChannel<SigWorkerInbox> channel;
    Child child;
    final Map<Long, Boolean> inFlight = new HashMap<>();

    Worker(int index) {
      this.index = index;
    }
  }

  public SigManager(int workerCount, Channels channels, Timer verifyTimer, CrashReporter root) {
    super(root);
    this.workerCount = workerCount;
    this.channels = channels;
    this.verifyTimer = verifyTimer;
  }

  @Override
  protected Future<?> startNode() {
    return vertx.executeBlocking(() -> {
      Bip340Verifier.selfTest();
      return null;
    }, false).compose(ok -> deployWorkers());
  }

  private Future<?> deployWorkers() {
    toRoot = channels.open("sig-manager->root", Addresses.ROOT);
    List<Future<?>> deployed = new ArrayList<>();
    for (int i = 0; i < workerCount; i++) {
      Worker w = new Worker(i);
      workers.add(w);
      w.channel = channels.open("sig-manager->sig-worker", Addresses.sigWorker(i), stalled -> restart(w, "stalled"));
      w.child = new Child("sig-worker " + i, Addresses.sigWorker(i),
          () -> new SigWorker(w.index, channels, verifyTimer,
              (child, cause) -> context.runOnContext(v -> restart(w, cause.toString()))),
          new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER));
      deployed.add(w.child.deploy(vertx));
    }
    inbox = new Inbox<>(vertx, Addresses.SIG_MANAGER, SigInbox.class, this::handle);
    return Future.all(deployed);
  }

  private void handle(SigInbox msg) {
    if (msg instanceof SigInbox.Verify v) {
      if (pending.isEmpty() && trySend(v)) {
        return;
      }
      // every worker is out of credit: keep root's credit until one frees up
      pending.add(new Held(v, inbox.hold()));
      if (pending.size() == 1) {
        awaitCredit();
      }
    } else if (msg instanceof SigInbox.Checked c) {
      Worker w = workers.get(c.worker());
      if (w.inFlight.remove(c.ticket()) != null) {
        toRoot.sendOwed(new RootInbox.Verified(c.ticket(), c.valid(), c.reason()));
      }
    }
  }

  private record Held(SigInbox.Verify verify, Runnable release) {}

  private final java.util.ArrayDeque<Held> pending = new java.util.ArrayDeque<>();

  private boolean trySend(SigInbox.Verify v) {
    Worker w = pick();
    if (!w.channel.trySend(new SigWorkerInbox.Check(v.ticket(), v.event()))) {
      return false;
    }
    w.inFlight.put(v.ticket(), Boolean.TRUE);
    return true;
  }

  private void awaitCredit() {
    for (Worker w : workers) {
      w.channel.onCredit(this::drainPending);
    }
  }

  private void drainPending() {
    Held h;
    while ((h = pending.peek()) != null && trySend(h.verify())) {
      pending.poll();
      h.release().run();
    }
    if (!pending.isEmpty()) {
      awaitCredit();
    }
  }

  /** Round robin, skipping workers without credit; the last one tried when all are full. */
  private Worker pick() {
    for (int i = 0; i < workers.size(); i++) {
      Worker w = workers.get(next);
      next = (next + 1) % workers.size();
      if (w.channel.hasCredit()) {
        return w;
      }
    }
    return workers.get(next);
  }

  /** A dead sig-worker is redeployed; the checks it held are failed back ({@code error:} OKs, clients retry). */
  private void restart(Worker w, String cause) {
    w.child.redeploy(vertx, channels, cause, () -> {
      for (Long ticket : w.inFlight.keySet()) {
        toRoot.sendOwed(new RootInbox.Verified(ticket, false, "error: signature worker restarted, please retry"));
      }
      w.inFlight.clear();
    });
  }
}
