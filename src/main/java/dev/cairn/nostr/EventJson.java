package dev.cairn.nostr;

import java.util.List;

/**
 * Serializes an event once into the JSON object the relay stores and sends out. Field values are
 * written exactly as received; only JSON string escaping is applied (see {@link JsonStrings}).
 */
public final class EventJson {
  private EventJson() {}

  /** The JSON of {@code e}'s fields (ignores {@code e.json()}). */
  public static String toJson(NostrEvent e) {
    return toJson(e.id(), e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content(), e.sig());
  }

  public static String toJson(
      String id,
      String pubkey,
      long createdAt,
      int kind,
      List<List<String>> tags,
      String content,
      String sig) {
    StringBuilder sb = new StringBuilder(sizeHint(tags, content));
    sb.append("{\"id\":");
    JsonStrings.quote(sb, id);
    sb.append(",\"pubkey\":");
    JsonStrings.quote(sb, pubkey);
    sb.append(",\"created_at\":").append(createdAt);
    sb.append(",\"kind\":").append(kind);
    sb.append(",\"tags\":");
    appendTags(sb, tags);
    sb.append(",\"content\":");
    JsonStrings.quote(sb, content);
    sb.append(",\"sig\":");
    JsonStrings.quote(sb, sig);
    return sb.append('}').toString();
  }

  static void appendTags(StringBuilder sb, List<List<String>> tags) {
    sb.append('[');
    for (int i = 0, n = tags.size(); i < n; i++) {
      if (i > 0) {
        sb.append(',');
      }
      List<String> tag = tags.get(i);
      sb.append('[');
      for (int j = 0, m = tag.size(); j < m; j++) {
        if (j > 0) {
          sb.append(',');
        }
        JsonStrings.quote(sb, tag.get(j));
      }
      sb.append(']');
    }
    sb.append(']');
  }

  // Presize to avoid regrowing the builder: fixed fields are ~290 chars, plus strings and quotes.
  private static int sizeHint(List<List<String>> tags, String content) {
    int n = 300 + content.length();
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
