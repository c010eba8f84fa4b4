package dev.cairn.nostr;

import java.util.List;

/**
 * A Nostr event exactly as received: every field value is kept string for string, so the event
 * always re-verifies against its id. {@code json} is the event serialized once (standard JSON
 * escaping) and is what the relay stores and sends back out.
 *
 * <p>Immutable; safe to pass by reference between verticles.
 */
public record NostrEvent(
    String id,
    String pubkey,
    long createdAt,
    int kind,
    List<List<String>> tags,
    String content,
    String sig,
    String json) {

  public NostrEvent {
    tags = List.copyOf(tags.stream().map(List::copyOf).toList());
  }
}
