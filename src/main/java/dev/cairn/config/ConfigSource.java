package dev.cairn.config;

import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Where the effective configuration came from: the {@code --config} file (null when none) and the
 * {@code CAIRN_*} overrides. Policy re-reads it to reload its rules without a restart.
 */
public record ConfigSource(Path file, Map<String, String> env) {
  public static final ConfigSource NONE = new ConfigSource(null, Map.of());

  /** Keeps only the {@code CAIRN_*} variables: the rest of the environment is none of the config's business. */
  public static ConfigSource of(Path file, Map<String, String> env) {
    return new ConfigSource(file, env.entrySet().stream()
        .filter(e -> e.getKey().startsWith("CAIRN_") && e.getValue() != null)
        .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, Map.Entry::getValue)));
  }

  /** Defaults, the file as it is now, then the overrides: what a restart would load (not yet typed). */
  public JsonObject read() {
    return ConfigLoader.merged(file, env);
  }
}
