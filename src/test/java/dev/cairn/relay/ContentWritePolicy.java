package dev.cairn.relay;

import dev.cairn.policy.PolicyRequest;
import dev.cairn.policy.WritePolicy;
import io.vertx.core.Context;

/**
 * A test {@link WritePolicy} (registered in src/test/resources/META-INF/services): decides by a word
 * in the content, on the event loop. Remembers whether it was called on an event-loop thread.
 */
public final class ContentWritePolicy implements WritePolicy {
  static volatile Boolean onEventLoop;
  static volatile PolicyRequest last;

  @Override
  public Decision judge(PolicyRequest r) {
    onEventLoop = Context.isOnEventLoopThread();
    last = r;
    String c = r.event().content();
    if (c.contains("#java-reject")) {
      return Decision.reject("java says no");
    }
    if (c.contains("#java-restricted")) {
      return Decision.reject("restricted: java members only");
    }
    if (c.contains("#java-shadow")) {
      return Decision.shadowReject();
    }
    if (c.contains("#java-throw")) {
      throw new IllegalStateException("a bug in a policy");
    }
    return Decision.accept();
  }
}
