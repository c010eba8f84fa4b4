package dev.cairn.relay;

import dev.cairn.policy.PolicyRequest;
import dev.cairn.policy.WritePolicy;

/** A test {@link WritePolicy} on the classpath that no tenant enables: it must never be asked. */
public final class RefuseAllWritePolicy implements WritePolicy {
  static volatile int calls;

  @Override
  public Decision judge(PolicyRequest r) {
    calls++;
    return Decision.reject("blocked: nobody");
  }
}
