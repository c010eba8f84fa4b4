package dev.cairn.tree;

import java.util.ArrayDeque;

/**
 * Passes messages on through one downstream channel, in order: the one "wait queue + credit drain"
 * of the tree. While the channel has no credit the messages wait here. A message that came in on an
 * upstream channel waits together with that channel's credit ({@link Inbox#hold()}), so the upstream
 * sender runs out of credit in turn and the backpressure travels back to the socket; a message with
 * no upstream (a socket's frame, a timer's request) just waits, and its owner stops producing while
 * {@link #backlogged()} (the listener pauses the sockets that fed it, and resumes them
 * {@link #onDrained when drained}). Bounded by the upstream capacities, or by what its owner produces
 * while backlogged.
 */
public final class OrderedSender<M extends TreeMessage> {
  private static final Runnable NO_CREDIT = () -> { };

  private record Waiting<M>(M message, Runnable release) {}

  private final BoundedChannel<M> channel;
  private final ArrayDeque<Waiting<M>> waiting = new ArrayDeque<>();
  private Runnable onDrained;

  public OrderedSender(BoundedChannel<M> channel) {
    this.channel = channel;
  }

  public BoundedChannel<M> channel() {
    return channel;
  }

  /** Sends now, or holds the current message's upstream credit until it can be sent. */
  public void send(M message, Inbox<?> upstream) {
    if (waiting.isEmpty() && channel.trySend(message)) {
      return;
    }
    enqueue(message, upstream.hold());
  }

  /**
   * Sends now and runs {@code release}, or waits with it: for a message whose upstream credit was held
   * earlier (it waited at its node before it could be passed on), so {@code release} gives that back.
   */
  public void send(M message, Runnable release) {
    if (waiting.isEmpty() && channel.trySend(message)) {
      release.run();
      return;
    }
    enqueue(message, release);
  }

  /** Sends now, or queues the message (it came from no channel: its producer checks {@link #backlogged()}). */
  public void send(M message) {
    if (waiting.isEmpty() && channel.trySend(message)) {
      return;
    }
    enqueue(message, NO_CREDIT);
  }

  /** True while messages wait for credit. */
  public boolean backlogged() {
    return !waiting.isEmpty();
  }

  /** Runs {@code action} (on the sender's context) each time the queue empties after waiting. */
  public void onDrained(Runnable action) {
    this.onDrained = action;
  }

  /** Drops what waits (the receiver was redeployed); the upstream credit is given back. */
  public void clear() {
    Waiting<M> w;
    while ((w = waiting.poll()) != null) {
      w.release().run();
    }
  }

  public int waiting() {
    return waiting.size();
  }

  private void enqueue(M message, Runnable release) {
    waiting.add(new Waiting<>(message, release));
    if (waiting.size() == 1) {
      channel.onCredit(this::drain);
    }
  }

  private void drain() {
    Waiting<M> w;
    while ((w = waiting.peek()) != null) {
      if (!channel.trySend(w.message())) {
        channel.onCredit(this::drain);
        return;
      }
      waiting.poll();
      w.release().run();
    }
    if (onDrained != null) {
      onDrained.run();
    }
  }
}
