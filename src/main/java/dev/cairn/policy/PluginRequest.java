package dev.cairn.policy;

import dev.cairn.nostr.NostrEvent;
import io.vertx.core.Promise;

/**
 * One event waiting for a plugin's answer. The final fields are read by the process's writer thread
 * (which builds the JSON line off the event loop); the rest belongs to the event loop.
 */
final class PluginRequest {
  final String tenant;
  final NostrEvent event;
  final String ip;
  final String authedPubkey;
  final long receivedAt;
  final long timeoutNanos;
  final boolean acceptOnFailure;
  final Promise<Verdict> promise;
  /** Settled: answered, timed out or failed. */
  boolean done;
  long timer = -1;
  /** The process it was written to, null while it waits for one. */
  PluginProcess sentTo;

  PluginRequest(String tenant, NostrEvent event, String ip, String authedPubkey, long receivedAt, long timeoutNanos,
      boolean acceptOnFailure, Promise<Verdict> promise) {
    this.tenant = tenant;
    this.event = event;
    this.ip = ip;
    this.authedPubkey = authedPubkey;
    this.receivedAt = receivedAt;
    this.timeoutNanos = timeoutNanos;
    this.acceptOnFailure = acceptOnFailure;
    this.promise = promise;
  }

  String id() {
    return event.id();
  }

  /** The JSON line for the plugin (writer thread). */
  String line() {
    return PluginProtocol.request(event, ip, authedPubkey, receivedAt);
  }
}
