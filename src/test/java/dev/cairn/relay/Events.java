package dev.cairn.relay;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** Signed test events, built with the real signer (libsecp256k1). */
public final class Events {
  private Events() {}

  public static long now() {
    return System.currentTimeMillis() / 1000;
  }

  public static JsonObject signed(EventSigner signer, int kind, long createdAt, List<List<String>> tags, String content) {
    NostrEvent e = signer.sign(createdAt, kind, tags, content);
    return new JsonObject(e.jsonText());
  }

  public static JsonObject note(EventSigner signer, String content, List<List<String>> tags) {
    return signed(signer, 1, now(), tags, content);
  }
}
