package dev.cairn.nostr;

import java.util.List;

/**
 * Serializes an event once into the UTF-8 JSON object the relay stores and sends out. Field values
 * are written exactly as received; only JSON string escaping is applied (see {@link JsonBytes}).
 * Field order is fixed: id, pubkey, created_at, kind, tags, content, sig.
 */
public final class EventJson {
  private EventJson() {}

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
        java.nio.charset.StandardCharsets.UTF_8);
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
