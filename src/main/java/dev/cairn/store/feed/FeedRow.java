package dev.cairn.store.feed;

import io.vertx.core.json.JsonObject;

/** One row of {@code feed_events}: a change with its feed seq. */
public record FeedRow(long seq, long ts, String type, String eventId, int kind, String pubkey, String reason,
    String json) {

  /** The frame's {@code data:} line (one JSON line), CONTRACT section 4. */
  public String data() {
    StringBuilder sb = new StringBuilder(json == null ? 200 : json.length() + 48);
    sb.append("{\"seq\":").append(seq).append(",\"ts\":").append(ts);
    if (FeedChange.STORED.equals(type)) {
      // The raw JSON as received may hold line breaks between tokens: an SSE data line may not.
      String ev = json.indexOf('\n') >= 0 || json.indexOf('\r') >= 0 ? new JsonObject(json).encode() : json;
      sb.append(",\"event\":").append(ev).append('}');
    } else {
      sb.append(",\"id\":\"").append(eventId).append("\",\"kind\":").append(kind)
          .append(",\"pubkey\":\"").append(pubkey).append("\",\"reason\":\"").append(reason).append("\"}");
    }
    return sb.toString();
  }
}
