package dev.cairn.policy;

import dev.cairn.nostr.NostrEvent;
import io.vertx.core.json.JsonObject;

/**
 * What a {@link WritePolicy} is asked about: a signature-checked event of {@code tenant} that passed
 * the built-in rules. The event's fields are read through its accessors ({@code id()},
 * {@code pubkey()}, {@code createdAt()}, {@code kind()}, {@code tags()}, {@code content()},
 * {@code sig()}), exactly as received.
 *
 * @param tenant the tenant id ({@code default} for the main relay)
 * @param event the event
 * @param ip the client's address without port, null when unknown
 * @param authedPubkey the pubkey the connection authenticated as (NIP-42), null when none
 * @param receivedAt when the policy node got the event, Unix seconds
 */
public record PolicyRequest(String tenant, NostrEvent event, String ip, String authedPubkey, long receivedAt) {

  /** The event as a JSON object (a new copy on each call), as a plugin gets it. */
  public JsonObject eventJson() {
    return PluginProtocol.eventJson(event);
  }

  /** {@code IP4} or {@code IP6}, as in the plugin protocol's {@code sourceType}. */
  public String sourceType() {
    return PluginProtocol.source(ip).type();
  }
}
