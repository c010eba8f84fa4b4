package dev.cairn.tree;

import java.util.ArrayDeque;

/**
 * Passes messages on through one downstream channel, in order. While the channel has no credit the
 * messages wait here together with the upstream credit they came with ({@link Inbox#hold()}), so
 * the upstream sender runs out of credit in turn: the backpressure travels back to the socket.
 * The queue is bounded by the upstream channels' capacities.
 */
public final class OrderedSender<M extends TreeMessage> {
  private record Waiting<M>(M message, Runnable release) {}

  private final BoundedChannel<M> channel;
  private final ArrayDeque<Waiting<M>> waiting = new ArrayDeque<>();

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
    waiting.add(new Waiting<>(message, upstream.hold()));
    if (waiting.size() == 1) {
      channel.onCredit(this::drain);
    }
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
  }
}
