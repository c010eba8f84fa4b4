package dev.cairn.delivery.feed;

import dev.cairn.store.feed.FeedRow;

/** The SSE frames of CONTRACT section 4, as text. */
final class SseFrames {
  private SseFrames() {}

  static void row(StringBuilder out, String epoch, FeedRow r) {
    out.append("id: ").append(epoch).append(':').append(r.seq()).append("\nevent: ").append(r.type())
        .append("\ndata: ").append(r.data()).append("\n\n");
  }

  static void heartbeat(StringBuilder out, String epoch, long seq) {
    out.append("id: ").append(epoch).append(':').append(seq).append("\nevent: heartbeat\ndata: {\"epoch\":\"")
        .append(epoch).append("\",\"seq\":").append(seq).append("}\n\n");
  }

  static void reset(StringBuilder out, String reason, String epoch, long oldest, long high) {
    out.append("id: ").append(epoch).append(':').append(high).append("\nevent: reset\ndata: {\"reason\":\"")
        .append(reason).append("\",\"epoch\":\"").append(epoch).append("\",\"oldest_seq\":").append(oldest)
        .append(",\"high_seq\":").append(high).append("}\n\n");
  }
}
