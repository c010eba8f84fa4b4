package dev.cairn.store.feed;

import dev.cairn.nostr.JsonBytes;
import io.vertx.core.json.JsonObject;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * One row of {@code feed_events}: a change with its feed seq. For {@code stored}, {@code json} is the
 * event's JSON (UTF-8, joined from the store); null when the event has left the store since, and the
 * frame is skipped (its {@code deleted} row follows). A page read leaves a stored row's {@code eventId},
 * {@code kind}, {@code pubkey} and {@code reason} out (null, 0): its frame is the JSON, which holds them.
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
    if (!hasLineBreak(json)) {
      return json;
    }
    return new JsonObject(new String(json, StandardCharsets.UTF_8)).encode().getBytes(StandardCharsets.UTF_8);
  }

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;

  /**
   * Whether {@code b} holds a '\n' or '\r', eight bytes per step: every replayed event is scanned, and
   * a byte-by-byte loop was a sixth of a replay's CPU. (x - ONES) & ~x & HIGHS is non-zero exactly when
   * some byte of x is zero, and x is zero where the byte equals the one looked for.
   */
  static boolean hasLineBreak(byte[] b) {
    int i = 0;
    for (; i + 8 <= b.length; i += 8) {
      long v = (long) LONGS.get(b, i);
      long lf = v ^ (ONES * '\n');
      long cr = v ^ (ONES * '\r');
      if (((((lf - ONES) & ~lf) | ((cr - ONES) & ~cr)) & HIGHS) != 0) {
        return true;
      }
    }
    for (; i < b.length; i++) {
      if (b[i] == '\n' || b[i] == '\r') {
        return true;
      }
    }
    return false;
  }
}
