package dev.cairn.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cairn.delivery.outbox.OutboxSettings;
import dev.cairn.store.feed.FeedSettings;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The configuration (docs/fuzzing.md): the {@code --config} file's text merged over the defaults,
 * then {@code CAIRN_*} overrides, then typed. The input is the file's text (none when empty), then
 * optionally a line {@code %%} followed by {@code NAME=value} lines. Invariants: a config or a
 * ConfigException naming what is wrong, never any other exception, also from the parts typed
 * apart (the policy on reload, the feed and outbox settings at start); every duration is in range.
 */
class ConfigFuzzTest {
  private static final String ENV = "\n%%\n";

  @FuzzTest(maxDuration = "10s")
  void config(byte[] input) {
    String s = new String(input, StandardCharsets.UTF_8);
    int split = s.indexOf(ENV);
    String file = split < 0 ? s : s.substring(0, split);
    Map<String, String> env = new LinkedHashMap<>();
    if (split >= 0) {
      for (String line : s.substring(split + ENV.length()).split("\n")) {
        int eq = line.indexOf('=');
        if (eq > 0) {
          env.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
    }
    JsonObject merged;
    try {
      merged = ConfigLoader.merged("--config fuzz.json", file.isEmpty() ? null : file, env);
    } catch (ConfigException e) {
      assertNotNull(e.getMessage());
      return;
    }
    // the policy reload path types the policy alone, outside load's catch (RuleReloader)
    try {
      PolicyConfig.from(merged.copy());
    } catch (ConfigException e) {
      assertNotNull(e.getMessage());
    }
    CairnConfig c;
    try {
      c = ConfigLoader.typed(merged, ConfigSource.NONE);
      // typed later, at start (Root): the same promise
      FeedSettings.from(c);
      OutboxSettings.from(c.raw());
    } catch (ConfigException e) {
      assertNotNull(e.getMessage());
      return;
    }
    assertTrue(c.headerTimeout().compareTo(Durations.MAX) <= 0);
    assertTrue(c.shutdownFlushBudget().compareTo(Durations.MAX) <= 0);
    assertTrue(c.sendRetryWindowMillis() >= 0);
    assertTrue(!c.binds().isEmpty() && c.binds().size() <= 64);
  }

  /** Durations alone: a duration in [0, MAX] or a ConfigException; its millis spelling parses back equal. */
  @FuzzTest(maxDuration = "10s")
  void duration(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    Duration d;
    try {
      d = Durations.parse("fuzz.duration", text);
    } catch (ConfigException e) {
      assertTrue(e.getMessage().startsWith("fuzz.duration: "), e.getMessage());
      return;
    }
    assertTrue(!d.isNegative() && d.compareTo(Durations.MAX) <= 0, d.toString());
    assertEquals(d, Durations.parse("k", d.toMillis() + "ms"));
    d.toNanos(); // what timers do with it: must not overflow
  }
}
