package dev.cairn.delivery.feed;

import dev.cairn.nostr.JsonBytes;
import dev.cairn.store.feed.FeedRow;

/** The SSE frames of CONTRACT section 4, as UTF-8 bytes (the event JSON is copied in as stored). */
final class SseFrames {
  private SseFrames() {}

  static void row(JsonBytes out, String epoch, FeedRow r) {
    out.ascii("id: ").ascii(epoch).put(':').number(r.seq()).ascii("\nevent: ").ascii(r.type()).ascii("\ndata: ");
    r.data(out);
    out.ascii("\n\n");
  }

  static void heartbeat(JsonBytes out, String epoch, long seq) {
    out.ascii("id: ").ascii(epoch).put(':').number(seq).ascii("\nevent: heartbeat\ndata: {\"epoch\":\"")
        .ascii(epoch).ascii("\",\"seq\":").number(seq).ascii("}\n\n");
  }

  /**
   * A keepalive during the replay: an SSE comment, not an event, so that the first {@code heartbeat}
   * keeps its contract meaning ("caught up") while proxies and clients still see bytes flowing.
   */
  static void replaying(JsonBytes out, String epoch, long seq) {
    out.ascii(": replaying ").ascii(epoch).put(':').number(seq).ascii("\n\n");
  }

  static void reset(JsonBytes out, String reason, String epoch, long oldest, long high) {
    out.ascii("id: ").ascii(epoch).put(':').number(high).ascii("\nevent: reset\ndata: {\"reason\":\"")
        .ascii(reason).ascii("\",\"epoch\":\"").ascii(epoch).ascii("\",\"oldest_seq\":").number(oldest)
        .ascii(",\"high_seq\":").number(high).ascii("}\n\n");
  }
}
