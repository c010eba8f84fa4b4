package dev.cairn.nostr;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A Nostr event exactly as received: every field value is kept string for string, so the event
 * always re-verifies against its id. {@code bytes} is the event serialized once (standard JSON
 * escaping, UTF-8): what the relay hashes, stores and sends back out, never re-encoded.
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
    EventBytes bytes) {

  public NostrEvent {
    tags = List.copyOf(tags.stream().map(List::copyOf).toList());
  }

  /** An event from its field values; serializes its JSON. */
  public static NostrEvent of(
      String id, String pubkey, long createdAt, int kind, List<List<String>> tags, String content, String sig) {
    return new NostrEvent(id, pubkey, createdAt, kind, tags, content, sig,
        EventJson.encode(id, pubkey, createdAt, kind, tags, content, sig));
  }

  /** The event's JSON, UTF-8. Shared: never modify. */
  public byte[] json() {
    return bytes.json();
  }

  /** The event's JSON as a String (tests, logs and tools; the relay keeps bytes). */
  public String jsonText() {
    return new String(bytes.json(), StandardCharsets.UTF_8);
  }
}
