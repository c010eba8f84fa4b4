package dev.cairn.sig;

import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Channels;
import dev.cairn.tree.Inbox;
import dev.cairn.tree.Supervised;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import java.util.concurrent.TimeUnit;

/** A worker verticle: hashes and verifies one event per message and answers its manager. */
final class SigWorker extends Supervised {
  private final int index;
  private final Channels channels;
  private final Timer verifyTimer;
  private final Bip340Verifier verifier = new Bip340Verifier();

  SigWorker(int index, Channels channels, Timer verifyTimer, CrashReporter manager) {
    super(manager);
    this.index = index;
    this.channels = channels;
    this.verifyTimer = verifyTimer;
  }

  @Override
  protected Future<?> startNode() {
    BoundedChannel<SigInbox> toManager = channels.open("sig-worker->sig-manager", Addresses.SIG_MANAGER);
    new Inbox<>(vertx, Addresses.sigWorker(index), SigWorkerInbox.class, msg -> {
      SigWorkerInbox.Check c = (SigWorkerInbox.Check) msg;
      long start = System.nanoTime();
      String reason = verifier.check(c.event());
      verifyTimer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      toManager.sendOwed(new SigInbox.Checked(index, c.ticket(), reason == null, reason));
    });
    return Future.succeededFuture();
  }
}
