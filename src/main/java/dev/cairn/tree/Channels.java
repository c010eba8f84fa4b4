package dev.cairn.tree;

import io.vertx.core.Vertx;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Opens the tree's bounded channels with one capacity ({@code tree.channel_capacity}) and retry
 * window ({@code tree.send_retry_window}), and knows every channel by its receiver's address: while
 * a node is redeployed, {@link #suspend} stops every sender to it (a full channel for each of them:
 * they hold what they have), and {@link #reset} resumes them all and tells each its in-flight
 * messages were lost. One mechanism for every manager and every channel. Call {@link #open} from the
 * sending node's context; a channel is forgotten with its sender (weakly held).
 */
public final class Channels {
  private final Vertx vertx;
  private final int capacity;
  private final long retryWindowMillis;
  private final ChannelMetrics metrics;
  private final Map<String, Set<BoundedChannel<?>>> byAddress = new ConcurrentHashMap<>();

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
    BoundedChannel<M> ch = new BoundedChannel<>(vertx, name, address, capacity, retryWindowMillis, onStall, metrics);
    Set<BoundedChannel<?>> set = byAddress.computeIfAbsent(address,
        a -> Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>())));
    set.add(ch);
    return ch;
  }

  /** The receiver at {@code address} is being redeployed: every sender to it holds what it has. */
  public void suspend(String address) {
    for (BoundedChannel<?> ch : snapshot(address)) {
      ch.suspend();
    }
  }

  /** The receiver at {@code address} is back: every sender resumes with full credit and is told of the loss. */
  public void reset(String address) {
    for (BoundedChannel<?> ch : snapshot(address)) {
      ch.reset();
    }
  }

  private List<BoundedChannel<?>> snapshot(String address) {
    Set<BoundedChannel<?>> set = byAddress.get(address);
    if (set == null) {
      return List.of();
    }
    synchronized (set) {
      return List.copyOf(set);
    }
  }

  public int capacity() {
    return capacity;
  }
}
