package dev.cairn.config;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Loads the effective configuration: the built-in defaults ({@code cairn-defaults.json}), merged
 * with the {@code --config} file, then every {@code CAIRN_<PATH>} environment variable (upper case,
 * dots to underscores). Only keys that exist in the defaults can be overridden from the
 * environment, so a typo in a variable name is reported instead of silently ignored.
 */
public final class ConfigLoader {
  private ConfigLoader() {}

  public static CairnConfig load(Path file, Map<String, String> env) {
    return typed(merged(file, env), ConfigSource.of(file, env));
  }

  /** The typed config of an already merged tree; any unusable value is a {@link ConfigException}. */
  static CairnConfig typed(JsonObject merged, ConfigSource source) {
    try {
      return CairnConfig.from(merged, source);
    } catch (ClassCastException | NullPointerException | NumberFormatException e) {
      throw new ConfigException("config has a value of the wrong type: " + e.getMessage());
    }
  }

  /** The defaults merged with the file and the env overrides, not yet typed. */
  public static JsonObject merged(Path file, Map<String, String> env) {
    String text = null;
    if (file != null) {
      try {
        text = Files.readString(file);
      } catch (IOException e) {
        throw new ConfigException("--config " + file + ": cannot read: " + e.getMessage());
      }
    }
    return merged(file == null ? null : "--config " + file, text, env);
  }

  /**
   * The defaults merged with {@code text} (the config file's content, null when there is none;
   * {@code origin} names it in errors) and the env overrides. Apart from reading the file, all of
   * {@link #load} goes through here: the fuzz tests call it with generated text.
   */
  static JsonObject merged(String origin, String text, Map<String, String> env) {
    JsonObject merged = defaults();
    if (text != null) {
      Object file;
      try {
        file = io.vertx.core.json.Json.decodeValue(text);
      } catch (DecodeException e) {
        throw new ConfigException(origin + ": not valid JSON: " + e.getMessage());
      }
      // "null", "[]" or "3" is valid JSON but no config: say so, not a NullPointerException
      if (!(file instanceof JsonObject o)) {
        throw new ConfigException(origin + ": must be a JSON object");
      }
      merged = merged.mergeIn(o, true);
    }
    applyEnv(merged, env);
    return merged;
  }

  public static JsonObject defaults() {
    try (InputStream in = ConfigLoader.class.getResourceAsStream("/cairn-defaults.json")) {
      return new JsonObject(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("cairn-defaults.json missing from the jar", e);
    }
  }

  static void applyEnv(JsonObject config, Map<String, String> env) {
    List<String> unknown = new ArrayList<>();
    for (Map.Entry<String, String> e : env.entrySet()) {
      if (!e.getKey().startsWith("CAIRN_")) {
        continue;
      }
      if (!override(config, "", config, e.getKey(), e.getValue())) {
        unknown.add(e.getKey());
      }
    }
    if (!unknown.isEmpty()) {
      throw new ConfigException("unknown config override(s): " + String.join(", ", unknown));
    }
  }

  private static boolean override(JsonObject root, String prefix, JsonObject node, String var, String value) {
    for (String key : node.fieldNames()) {
      String path = prefix.isEmpty() ? key : prefix + "." + key;
      Object current = node.getValue(key);
      if (envName(path).equals(var)) {
        node.put(key, convert(path, current, value));
        return true;
      }
      if (current instanceof JsonObject child && var.startsWith(envName(path) + "_")
          && override(root, path, child, var, value)) {
        return true;
      }
    }
    return false;
  }

  static String envName(String path) {
    return "CAIRN_" + path.toUpperCase(Locale.ROOT).replace('.', '_');
  }

  private static Object convert(String path, Object current, String value) {
    try {
      if (current instanceof Integer) {
        return Integer.parseInt(value.trim());
      }
      if (current instanceof Long) {
        return Long.parseLong(value.trim());
      }
      if (current instanceof Double) {
        return Double.parseDouble(value.trim());
      }
      if (current instanceof Boolean) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false")) {
          throw new ConfigException(envName(path) + ": expected true or false, got \"" + value + "\"");
        }
        return Boolean.parseBoolean(v);
      }
      if (current instanceof JsonArray) {
        String v = value.trim();
        if (v.startsWith("[")) {
          return new JsonArray(v);
        }
        JsonArray a = new JsonArray();
        for (String part : v.split(",")) {
          if (!part.isBlank()) {
            a.add(part.trim());
          }
        }
        return a;
      }
      if (current instanceof JsonObject) {
        return new JsonObject(value);
      }
      return value;
    } catch (NumberFormatException | DecodeException e) {
      throw new ConfigException(envName(path) + ": cannot use \"" + value + "\": " + e.getMessage());
    }
  }

  /** The effective config for the start log, with secrets masked. */
  public static JsonObject masked(JsonObject config) {
    JsonObject copy = config.copy();
    mask(copy);
    return copy;
  }

  private static void mask(Object node) {
    if (node instanceof JsonObject o) {
      for (String k : new ArrayList<>(o.fieldNames())) {
        Object v = o.getValue(k);
        if ((k.contains("token") || k.contains("password") || k.equals("key")) && v != null
            && !(v instanceof JsonObject)) {
          o.put(k, v instanceof JsonArray a ? "[" + a.size() + " masked]" : (String.valueOf(v).isEmpty() ? "" : "***"));
        } else {
          mask(v);
        }
      }
    } else if (node instanceof JsonArray a) {
      a.forEach(ConfigLoader::mask);
    }
  }
}
