package dev.cairn.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code limits.query_budget}: default, env override, off, the text clients see, what is refused. */
class QueryBudgetConfigTest {
  private static Limits limits(Map<String, String> env) {
    return ConfigLoader.load(null, env).limits();
  }

  @Test
  void defaultsToThreeSeconds() {
    assertEquals(3000, limits(Map.of()).queryBudgetMillis());
    assertEquals("3s", limits(Map.of()).queryBudgetText());
  }

  @Test
  void envOverridesAndOff() {
    Limits l = limits(Map.of("CAIRN_LIMITS_QUERY_BUDGET", "250ms"));
    assertEquals(250, l.queryBudgetMillis());
    assertEquals("250ms", l.queryBudgetText());
    assertEquals(0, limits(Map.of("CAIRN_LIMITS_QUERY_BUDGET", "0s")).queryBudgetMillis());
  }

  @Test
  void notADurationIsRefusedNamingTheKey() {
    assertTrue(assertThrows(ConfigException.class, () -> limits(Map.of("CAIRN_LIMITS_QUERY_BUDGET", "soon")))
        .getMessage().contains("limits.query_budget"));
  }
}
