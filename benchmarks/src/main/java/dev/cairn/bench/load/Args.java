package dev.cairn.bench.load;

import java.util.HashMap;
import java.util.Map;

/** {@code --key value} command-line options; {@code RELAY_URL} comes from -DRELAY_URL, the env, or --url. */
public final class Args {
  private final Map<String, String> values = new HashMap<>();

  public Args(String[] args) {
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--")) throw new IllegalArgumentException("unexpected argument " + args[i]);
      String key = args[i].substring(2);
      if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        values.put(key, args[++i]);
      } else {
        values.put(key, "true");
      }
    }
  }

  private Args(Map<String, String> values) {
    this.values.putAll(values);
  }

  /** A copy with {@code --key value} set ({@code value} null: the option removed). */
  public Args with(String key, String value) {
    Args copy = new Args(values);
    if (value == null) {
      copy.values.remove(key);
    } else {
      copy.values.put(key, value);
    }
    return copy;
  }

  public String str(String key, String def) {
    return values.getOrDefault(key, def);
  }

  public String required(String key) {
    String v = values.get(key);
    if (v == null) throw new IllegalArgumentException("--" + key + " is required");
    return v;
  }

  public int integer(String key, int def) {
    String v = values.get(key);
    return v == null ? def : Integer.parseInt(v);
  }

  public long lng(String key, long def) {
    String v = values.get(key);
    return v == null ? def : Long.parseLong(v);
  }

  public double dbl(String key, double def) {
    String v = values.get(key);
    return v == null ? def : Double.parseDouble(v);
  }

  public boolean flag(String key) {
    return Boolean.parseBoolean(values.getOrDefault(key, "false"));
  }

  /** The relay under test: --url, else system property RELAY_URL, else env RELAY_URL, else ws://127.0.0.1:7777. */
  public String relayUrl() {
    return values.getOrDefault("url", relayUrlDefault());
  }

  public static String relayUrlDefault() {
    String v = System.getProperty("RELAY_URL");
    if (v == null || v.isBlank()) v = System.getenv("RELAY_URL");
    if (v == null || v.isBlank()) v = "ws://127.0.0.1:7777";
    return v;
  }
}
