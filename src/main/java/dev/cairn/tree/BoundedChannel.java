package dev.cairn.tree;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A bounded, credit-based channel from one node to another node's {@link Inbox}.
 *
 * <p>The sender holds {@code capacity} credits; each send spends one and the receiver gives it back
 * once the message is handled. With no credit left, {@link #trySend} refuses and the sender must
 * stop reading its own input; {@link #onCredit} runs once on the sender's context when credit
 * returns. A sender stalled for longer than the retry window reports the receiver as stuck through
 * {@code onStall}, so its manager can redeploy it. No drop-oldest, no unbounded queue.
 *
 * <p>Messages sent during one task of the sender's context travel together: the first send of a
 * task schedules one flush after it, and everything sent until then goes in one event-bus delivery.
 * Under load that turns many thread hand-offs into one; credit still counts single messages.
 */
public final class BoundedChannel<M extends TreeMessage> {
  private static final DeliveryOptions LOCAL =
      new DeliveryOptions().setCodecName(LocalCodec.NAME).setLocalOnly(true);

  private final Vertx vertx;
  private final Context senderContext;
  private final String name;
  private final String address;
  private final int capacity;
  private final long stallMillis;
  private final Consumer<String> onStall;
  private final ChannelMetrics metrics;
  private final AtomicInteger credit;
  private final AtomicBoolean waiting = new AtomicBoolean();
  private Runnable onCredit;
  /** Told (on the sender's context) when the receiver was redeployed: what it held is gone. */
  private volatile Runnable onReset;
  /** The receiver is being redeployed: nothing is sent until {@link #reset()}. */
  private volatile boolean suspended;
  private ArrayList<Object> outgoing;
  private long stallTimer = -1;

  public BoundedChannel(
      Vertx vertx,
      String name,
      String address,
      int capacity,
      long stallMillis,
      Consumer<String> onStall,
      ChannelMetrics metrics) {
    this.vertx = vertx;
    this.senderContext = vertx.getOrCreateContext();
    this.name = name;
    this.address = address;
    this.capacity = capacity;
    this.stallMillis = stallMillis;
    this.onStall = onStall;
    this.metrics = metrics;
    this.credit = new AtomicInteger(capacity);
  }

  public String name() {
    return name;
  }

  public boolean hasCredit() {
    return !suspended && credit.get() > 0;
  }

  /** Sends when credit is left; otherwise returns false and counts a full channel. */
  public boolean trySend(M message) {
    if (!hasCredit()) {
      metrics.channelFull(name);
      return false;
    }
    credit.decrementAndGet();
    enqueue(message);
    return true;
  }

  /**
   * Sends regardless of credit, going into debt. Only for replies whose request already spent
   * credit upstream (the reply volume is bounded by the request volume).
   */
  public void sendOwed(M message) {
    credit.decrementAndGet();
    enqueue(message);
  }

  private void enqueue(M message) {
    if (Vertx.currentContext() != senderContext) {
      // a callback from a foreign thread (e.g. a client library): join the sender's context first
      senderContext.runOnContext(v -> enqueue(message));
      return;
    }
    if (outgoing == null) {
      outgoing = new ArrayList<>(4);
      senderContext.runOnContext(v -> flush());
    }
    outgoing.add(message);
  }

  private void flush() {
    List<Object> batch = outgoing;
    outgoing = null;
    vertx.eventBus().send(address, new Delivery(this, batch), LOCAL);
  }

  /** Runs {@code action} once on the sender's context as soon as credit is back. */
  public void onCredit(Runnable action) {
    this.onCredit = action;
    waiting.set(true);
    if (hasCredit() && waiting.compareAndSet(true, false)) {
      senderContext.runOnContext(v -> fireCredit());
      return;
    }
    if (stallTimer < 0 && stallMillis > 0) {
      stallTimer =
          vertx.setTimer(
              stallMillis,
              id -> {
                stallTimer = -1;
                if (waiting.get()) {
                  onStall.accept(name);
                }
              });
    }
  }

  /** Called by the receiving inbox once a message was handled. */
  void returnCredit() {
    if (credit.incrementAndGet() > 0 && !suspended && waiting.compareAndSet(true, false)) {
      senderContext.runOnContext(v -> fireCredit());
    }
  }

  /**
   * The receiver died and is being redeployed: from now on sends are refused (senders hold their
   * messages, as for a full channel) so none is lost to an address without a consumer.
   */
  public void suspend() {
    suspended = true;
  }

  /**
   * Forgets all debt after the receiver was redeployed and resumes; the sender's {@link #onReset}
   * hook learns that what it had sent and not yet seen answered was lost with the old receiver.
   */
  public void reset() {
    suspended = false;
    credit.set(capacity);
    Runnable hook = onReset;
    if (hook != null) {
      senderContext.runOnContext(v -> hook.run());
    }
    if (waiting.compareAndSet(true, false)) {
      senderContext.runOnContext(v -> fireCredit());
    }
  }

  /** Runs {@code action} on the sender's context whenever the receiver was redeployed (see {@link #reset}). */
  public void onReset(Runnable action) {
    this.onReset = action;
  }

  /** The receiver's address. */
  public String address() {
    return address;
  }

  private void fireCredit() {
    if (stallTimer >= 0) {
      vertx.cancelTimer(stallTimer);
      stallTimer = -1;
    }
    Runnable action = onCredit;
    onCredit = null;
    if (action != null) {
      action.run();
    }
  }
}
