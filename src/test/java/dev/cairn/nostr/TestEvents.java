package dev.cairn.nostr;

import java.util.LinkedHashMap;
import java.util.Map;

/** Builds event JSON text field by field, so each test changes exactly one thing. */
final class TestEvents {
  static final String ID = "0123456789abcdef".repeat(4);
  static final String PUBKEY = "fedcba9876543210".repeat(4);
  static final String SIG = "ab".repeat(64);

  private TestEvents() {}

  /** A structurally valid event; {@code overrides} are (field, raw JSON value) pairs, null removes. */
  static String json(String... overrides) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("id", "\"" + ID + "\"");
    fields.put("pubkey", "\"" + PUBKEY + "\"");
    fields.put("created_at", "1700000000");
    fields.put("kind", "1");
    fields.put("tags", "[[\"e\",\"" + ID + "\"],[\"p\",\"" + PUBKEY + "\",\"wss://r\"]]");
    fields.put("content", "\"hello\"");
    fields.put("sig", "\"" + SIG + "\"");
    for (int i = 0; i < overrides.length; i += 2) {
      if (overrides[i + 1] == null) {
        fields.remove(overrides[i]);
      } else {
        fields.put(overrides[i], overrides[i + 1]);
      }
    }
    StringBuilder sb = new StringBuilder("{");
    fields.forEach((k, v) -> sb.append(sb.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
    return sb.append('}').toString();
  }
}
