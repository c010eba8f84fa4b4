package dev.cairn.nostr;

import java.util.List;

/** A parsed client-to-relay frame (NIP-01, NIP-42 AUTH, NIP-45 COUNT, NIP-77 NEG-*). */
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

  /**
   * {@code ["NEG-OPEN", <sub_id>, <filter>, <hex>]}: start a negentropy sync (NIP-77) over the stored
   * events matching {@code filter}; {@code message} is the initial message, already hex-decoded.
   * Replaces an open session of the same id.
   */
  record NegOpenMessage(String subId, Filter filter, byte[] message) implements ClientMessage {}

  /** {@code ["NEG-MSG", <sub_id>, <hex>]}: the next message of an open sync, hex-decoded. */
  record NegMsgMessage(String subId, byte[] message) implements ClientMessage {}

  /** {@code ["NEG-CLOSE", <sub_id>]}: end a sync session. */
  record NegCloseMessage(String subId) implements ClientMessage {}
}
