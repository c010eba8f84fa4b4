package dev.cairn.policy;

import java.util.Objects;

/**
 * An in-process write policy (docs/plugins.md, "Java policies"): found with
 * {@link java.util.ServiceLoader} (a {@code META-INF/services/dev.cairn.policy.WritePolicy} file
 * naming the class, which needs a public no-argument constructor) and enabled per tenant by
 * {@code policy.java_policies} / {@code tenants[].policy.java_policies}, in the listed order.
 *
 * <p>It is asked about every event that passed the built-in rules (validity, blacklists, allowlist,
 * rate limits, duplicate content), before the plugin and before mute; the first policy that does
 * not accept decides. One instance per class and policy node serves every tenant that lists it.
 *
 * <p>{@link #judge} runs on the policy node's event loop: it must be fast and must not block (no
 * I/O, no locks held for long, no sleeping). A policy that needs to block returns {@code true} from
 * {@link #blocking()}; its calls then run on a Vert.x worker thread, several at once, so it must be
 * thread-safe and should bound its own time (nothing times it out). An exception thrown by
 * {@code judge} refuses the event with {@code error: internal error} and is logged.
 */
public interface WritePolicy {

  /** The decision about one event. */
  Decision judge(PolicyRequest request);

  /** True to be called on a worker thread instead of the event loop. */
  default boolean blocking() {
    return false;
  }

  /** What happens to the event: the same three actions as a plugin's answer. */
  enum Action {
    /** go on (the plugin and mute may still refuse it) */
    ACCEPT,
    /** {@code OK false} with the message */
    REJECT,
    /** {@code OK true}, but neither stored nor dispatched (like a muted author) */
    SHADOW_REJECT
  }

  /**
   * A decision. A rejection's message is sent to the client; without one of the NIP-01 prefixes
   * ({@code blocked:}, {@code restricted:}, {@code rate-limited:}, ...) it is prefixed {@code blocked: }.
   */
  record Decision(Action action, String message) {
    private static final Decision ACCEPT = new Decision(Action.ACCEPT, "");
    private static final Decision SHADOW_REJECT = new Decision(Action.SHADOW_REJECT, "");

    public Decision {
      Objects.requireNonNull(action, "action");
      message = message == null ? "" : message;
    }

    public static Decision accept() {
      return ACCEPT;
    }

    public static Decision reject(String message) {
      return new Decision(Action.REJECT, message);
    }

    public static Decision shadowReject() {
      return SHADOW_REJECT;
    }
  }
}
