package dev.cairn.tree;

import io.vertx.core.Vertx;
import java.util.function.Consumer;

/**
 * Opens the tree's bounded channels with one capacity ({@code tree.channel_capacity}) and retry
 * window ({@code tree.send_retry_window}). Call {@link #open} from the sending node's context.
 */
public final class Channels {
  private final Vertx vertx;
  private final int capacity;
  private final long retryWindowMillis;
  private final ChannelMetrics metrics;

  public Channels(Vertx vertx, int capacity, long retryWindowMillis, ChannelMetrics metrics) {
    this.vertx = vertx;
    this.capacity = capacity;
    this.retryWindowMillis = retryWindowMillis;
    this.metrics = metrics;
  }

  /** A channel whose stalls are only counted (the receiver is supervised elsewhere). */
  public <M extends TreeMessage> BoundedChannel<M> open(String name, String address) {
    return open(name, address, stalled -> {});
  }

  /** A channel whose receiver is this sender's child: a stall past the window reports it stuck. */
  public <M extends TreeMessage> BoundedChannel<M> open(String name, String address, Consumer<String> onStall) {
    return new BoundedChannel<>(vertx, name, address, capacity, retryWindowMillis, onStall, metrics);
  }

  public int capacity() {
    return capacity;
  }
}
