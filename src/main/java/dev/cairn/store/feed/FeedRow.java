package dev.cairn.store.feed;

import dev.cairn.nostr.JsonBytes;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;

/**
 * One row of {@code feed_events}: a change with its feed seq. For {@code stored}, {@code json} is the
 * event's JSON (UTF-8, joined from the store); null when the event has left the store since, and the
 * frame is skipped (its {@code deleted} row follows).
 */
public record FeedRow(long seq, long ts, String type, String eventId, int kind, String pubkey, String reason,
    byte[] json) {

  /** False for a stored row whose event is gone: no frame (a hole in the seq, as CONTRACT section 4 allows). */
  public boolean hasFrame() {
    return !FeedChange.STORED.equals(type) || json != null;
  }

  /** Appends the frame's {@code data:} line (one JSON line), CONTRACT section 4. */
  public void data(JsonBytes out) {
    out.ascii("{\"seq\":").number(seq).ascii(",\"ts\":").number(ts);
    if (FeedChange.STORED.equals(type)) {
      out.ascii(",\"event\":").raw(oneLine(json)).put('}');
    } else {
      out.ascii(",\"id\":\"").ascii(eventId).ascii("\",\"kind\":").number(kind).ascii(",\"pubkey\":\"").ascii(pubkey)
          .ascii("\",\"reason\":\"").ascii(reason).ascii("\"}");
    }
  }

  /** The JSON of rows written by older versions may hold line breaks between tokens: an SSE data line may not. */
  private static byte[] oneLine(byte[] json) {
    for (byte b : json) {
      if (b == '\n' || b == '\r') {
        return new JsonObject(new String(json, StandardCharsets.UTF_8)).encode().getBytes(StandardCharsets.UTF_8);
      }
    }
    return json;
  }
}
