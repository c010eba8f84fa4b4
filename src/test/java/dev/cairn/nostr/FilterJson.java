package dev.cairn.nostr;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A filter's canonical JSON (fields in NIP-01 order, set members and tag letters sorted, absent
 * fields left out): the serializer the fuzz tests round-trip parsed filters through. The relay never
 * sends filters, so this lives with the tests.
 */
final class FilterJson {
  private FilterJson() {}

  static String canonical(Filter f) {
    StringBuilder sb = new StringBuilder("{");
    strings(sb, "ids", f.ids());
    strings(sb, "authors", f.authors());
    if (f.kinds() != null) {
      field(sb, "kinds").append('[');
      String sep = "";
      for (int k : new TreeSet<>(f.kinds())) {
        sb.append(sep).append(k);
        sep = ",";
      }
      sb.append(']');
    }
    for (Map.Entry<Character, Set<String>> tag : new TreeMap<>(f.tags()).entrySet()) {
      strings(sb, "#" + tag.getKey(), tag.getValue());
    }
    if (f.since() != null) {
      field(sb, "since").append(f.since());
    }
    if (f.until() != null) {
      field(sb, "until").append(f.until());
    }
    if (f.limit() != null) {
      field(sb, "limit").append(f.limit());
    }
    if (f.search() != null) {
      JsonStrings.quote(field(sb, "search"), f.search());
    }
    return sb.append('}').toString();
  }

  private static void strings(StringBuilder sb, String name, Set<String> values) {
    if (values == null) {
      return;
    }
    field(sb, name).append('[');
    String sep = "";
    for (String v : new TreeSet<>(values)) {
      JsonStrings.quote(sb.append(sep), v);
      sep = ",";
    }
    sb.append(']');
  }

  private static StringBuilder field(StringBuilder sb, String name) {
    if (sb.length() > 1) {
      sb.append(',');
    }
    return JsonStrings.quote(sb, name).append(':');
  }
}
