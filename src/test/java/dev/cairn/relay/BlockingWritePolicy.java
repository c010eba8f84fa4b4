package dev.cairn.relay;

import dev.cairn.policy.PolicyRequest;
import dev.cairn.policy.WritePolicy;
import io.vertx.core.Context;

/** A test {@link WritePolicy} that blocks (as a lookup in a remote service would): run on a worker. */
public final class BlockingWritePolicy implements WritePolicy {
  static volatile Boolean onEventLoop;

  @Override
  public boolean blocking() {
    return true;
  }

  @Override
  public Decision judge(PolicyRequest r) {
    onEventLoop = Context.isOnEventLoopThread();
    if (r.event().content().contains("#java-slow")) {
      try {
        Thread.sleep(700);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Decision.reject("rate-limited: looked it up slowly");
    }
    return Decision.accept();
  }
}
