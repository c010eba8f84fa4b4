package dev.cairn.nostr;

import java.util.List;

/** A parsed client-to-relay frame (NIP-01, NIP-42 AUTH, NIP-45 COUNT). */
public sealed interface ClientMessage {

  /** {@code ["EVENT", <event>]}: publish. */
  record EventMessage(NostrEvent event) implements ClientMessage {}

  /** {@code ["REQ", <sub_id>, <filter>...]}: subscribe (replaces a subscription of the same id). */
  record ReqMessage(String subId, List<Filter> filters) implements ClientMessage {
    public ReqMessage {
      filters = List.copyOf(filters);
    }
  }

  /** {@code ["COUNT", <sub_id>, <filter>...]}: count matches (NIP-45). */
  record CountMessage(String subId, List<Filter> filters) implements ClientMessage {
    public CountMessage {
      filters = List.copyOf(filters);
    }
  }

  /** {@code ["CLOSE", <sub_id>]}: end a subscription. */
  record CloseMessage(String subId) implements ClientMessage {}

  /** {@code ["AUTH", <event>]}: NIP-42 authentication event (kind 22242). */
  record AuthMessage(NostrEvent event) implements ClientMessage {}
}
