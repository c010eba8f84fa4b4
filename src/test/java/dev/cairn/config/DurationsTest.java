package dev.cairn.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Config durations, and the fuzzing findings (docs/fuzzing.md): each bad input is a ConfigException naming its key. */
class DurationsTest {
  @Test
  void units() {
    assertEquals(Duration.ofMillis(500), Durations.parse("k", "500ms"));
    assertEquals(Duration.ofSeconds(30), Durations.parse("k", "30s"));
    assertEquals(Duration.ofSeconds(15), Durations.parse("k", " 15 "));
    assertEquals(Duration.ofMinutes(10), Durations.parse("k", "10m"));
    assertEquals(Duration.ofHours(168), Durations.parse("k", "168h"));
    assertEquals(Duration.ofDays(36_500), Durations.parse("k", "36500d"));
    assertEquals(Duration.ofMillis(1), Durations.parse("k", "0000000000000000000000001ms"));
  }

  @Test
  void days106751991167301IsAConfigException() {
    // was an ArithmeticException from Duration.ofDays(...).toMillis()
    assertRefused("106751991167301d");
  }

  @Test
  void twentyDigitSecondsIsAConfigException() {
    // was a NumberFormatException from Long.parseLong
    assertRefused("99999999999999999999s");
  }

  @Test
  void overAHundredYearsIsRefused() {
    assertRefused("36501d");
    assertRefused("876001h");
  }

  @Test
  void arabicIndicDigitsAreNotADuration() {
    // Character.isDigit and Long.parseLong read "١٠s" as 10 seconds
    assertRefused("\u0661\u0660s");
  }

  @Test
  void aHugeEnvDurationIsAConfigException() {
    // loaded fine before, then threw ArithmeticException at shutdown (flush budget toMillis())
    ConfigException e = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(null, Map.of("CAIRN_SHUTDOWN_FLUSH_BUDGET", "106751991167301d")));
    assertEquals(true, e.getMessage().startsWith("shutdown.flush_budget: "), e.getMessage());
  }

  private static void assertRefused(String text) {
    ConfigException e = assertThrows(ConfigException.class, () -> Durations.parse("feed.retention", text));
    assertEquals(true, e.getMessage().startsWith("feed.retention: "), e.getMessage());
  }
}
