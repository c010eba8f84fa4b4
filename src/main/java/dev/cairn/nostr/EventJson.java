package dev.cairn.nostr;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Serializes an event once into the UTF-8 JSON object the relay stores and sends out. Field values
 * are written exactly as received; only JSON string escaping is applied (see {@link JsonBytes}).
 * Field order is fixed: id, pubkey, created_at, kind, tags, content, sig.
 */
public final class EventJson {
  /** How {@link #encode} begins every event, around its id's and pubkey's 64 characters each. */
  private static final byte[] HEAD = "{\"id\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] AFTER_ID = "\",\"pubkey\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] AFTER_PUBKEY = "\",\"created_at\":".getBytes(StandardCharsets.US_ASCII);
  private static final int ID_AT = HEAD.length;
  private static final int PUBKEY_END = ID_AT + 64 + AFTER_ID.length + 64;
  private static final int CREATED_AT_AT = PUBKEY_END + AFTER_PUBKEY.length;

  private EventJson() {}

  /**
   * Whether {@code json} begins as {@link #encode} writes every event, {@code {"id":"<64>","pubkey":"<64>",
   * "created_at":<digits>,}, so that {@link #idOf} and {@link #createdAtOf} can read those two values where
   * they stand instead of parsing the object (a store reads them so for each row it returns).
   */
  public static boolean isEncoded(byte[] json) {
    if (json.length < CREATED_AT_AT + 2 || !at(json, 0, HEAD) || !at(json, ID_AT + 64, AFTER_ID)
        || !at(json, PUBKEY_END, AFTER_PUBKEY)) {
      return false;
    }
    int end = CREATED_AT_AT;
    while (end < json.length && json[end] >= '0' && json[end] <= '9') {
      end++;
    }
    // 1 to 18 digits (no overflow), then the next field
    return end > CREATED_AT_AT && end - CREATED_AT_AT <= 18 && end < json.length && json[end] == ',';
  }

  /** The id of JSON for which {@link #isEncoded} holds. */
  public static String idOf(byte[] json) {
    return new String(json, ID_AT, 64, StandardCharsets.ISO_8859_1);
  }

  /** The created_at of JSON for which {@link #isEncoded} holds. */
  public static long createdAtOf(byte[] json) {
    long v = 0;
    for (int i = CREATED_AT_AT; json[i] != ','; i++) {
      v = v * 10 + (json[i] - '0');
    }
    return v;
  }

  private static boolean at(byte[] json, int from, byte[] expected) {
    return Arrays.equals(json, from, from + expected.length, expected, 0, expected.length);
  }

  public static EventBytes encode(
      String id, String pubkey, long createdAt, int kind, List<List<String>> tags, String content, String sig) {
    JsonBytes out = new JsonBytes(sizeHint(tags, content));
    out.ascii("{\"id\":").string(id).ascii(",\"pubkey\":").string(pubkey)
        .ascii(",\"created_at\":").number(createdAt).ascii(",\"kind\":").number(kind).ascii(",\"tags\":");
    int tagsFrom = out.length();
    appendTags(out, tags);
    int tagsTo = out.length();
    out.ascii(",\"content\":");
    int contentFrom = out.length();
    out.string(content);
    int contentTo = out.length();
    out.ascii(",\"sig\":").string(sig).put('}');
    boolean canonical = !out.hadControlEscape();
    return new EventBytes(out.toByteArray(), canonical ? tagsFrom : -1, tagsTo, contentFrom, contentTo);
  }

  /** The JSON of the fields of {@code e} as a String (tests and tools; the relay keeps bytes). */
  public static String toJson(NostrEvent e) {
    return new String(encode(e.id(), e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content(), e.sig()).json(),
        StandardCharsets.UTF_8);
  }

  static void appendTags(JsonBytes out, List<List<String>> tags) {
    out.put('[');
    for (int i = 0, n = tags.size(); i < n; i++) {
      if (i > 0) {
        out.put(',');
      }
      List<String> tag = tags.get(i);
      out.put('[');
      for (int j = 0, m = tag.size(); j < m; j++) {
        if (j > 0) {
          out.put(',');
        }
        out.string(tag.get(j));
      }
      out.put(']');
    }
    out.put(']');
  }

  // Presize to avoid regrowing: fixed fields are ~290 bytes, plus strings (mostly ASCII) and quotes.
  private static int sizeHint(List<List<String>> tags, String content) {
    int n = 300 + content.length() + (content.length() >> 2);
    for (int i = 0, t = tags.size(); i < t; i++) {
      List<String> tag = tags.get(i);
      n += 3;
      for (int j = 0, m = tag.size(); j < m; j++) {
        n += tag.get(j).length() + 3;
      }
    }
    return n;
  }
}
