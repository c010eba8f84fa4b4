package dev.cairn.policy;

/**
 * What a rule decided against an event, a REQ or a connection: a rejection with its metric label
 * ({@code rule}) and its NIP-01 prefixed message, or a mute (the event is answered {@code OK true}
 * but neither stored nor dispatched). A pass is {@code null}.
 */
record Verdict(String rule, String message, boolean muted) {
  static Verdict reject(String rule, String message) {
    return new Verdict(rule, message, false);
  }

  static Verdict mute() {
    return new Verdict("mute", null, true);
  }
}
