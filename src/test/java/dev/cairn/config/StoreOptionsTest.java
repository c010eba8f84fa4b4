package dev.cairn.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The store's options: the SQLite store's native helpers {@code store.wal_vfs} (decision 0016) and
 * {@code store.thread_priority} (decision 0017), auto by default, off from the environment, anything
 * else refused naming the key; and its two timers, refused when they could not work.
 */
class StoreOptionsTest {
  private static StoreOptions options(Map<String, String> env) {
    return ConfigLoader.load(null, env).storeOptions();
  }

  private static String envName(String key) {
    return "CAIRN_STORE_" + key.toUpperCase(java.util.Locale.ROOT);
  }

  @Test
  void theDefaults() {
    StoreOptions o = options(Map.of());
    assertTrue(o.walVfs());
    assertTrue(o.threadPriority());
    assertEquals(Duration.ofSeconds(60), o.expirySweepInterval());
    assertEquals(Duration.ofSeconds(2), o.tenantsPollInterval());
  }

  @Test
  void offFromTheEnvironment() {
    assertFalse(options(Map.of(envName("wal_vfs"), "off")).walVfs());
    assertFalse(options(Map.of(envName("thread_priority"), "off")).threadPriority());
    StoreOptions timers = options(Map.of(envName("expiry_sweep_interval"), "300ms", envName("tenants_poll_interval"), "5s"));
    assertEquals(Duration.ofMillis(300), timers.expirySweepInterval());
    assertEquals(Duration.ofSeconds(5), timers.tenantsPollInterval());
  }

  @ParameterizedTest
  @ValueSource(strings = {"wal_vfs", "thread_priority"})
  void anotherValueIsRefusedNamingTheKey(String key) {
    ConfigException e = assertThrows(ConfigException.class, () -> options(Map.of(envName(key), "on")));
    assertTrue(e.getMessage().contains("store." + key), e.getMessage());
  }

  @ParameterizedTest
  @CsvSource({"expiry_sweep_interval, 0s", "expiry_sweep_interval, soon", "tenants_poll_interval, 50ms"})
  void aTimerThatCouldNotWorkIsRefusedNamingTheKey(String key, String value) {
    ConfigException e = assertThrows(ConfigException.class, () -> options(Map.of(envName(key), value)));
    assertTrue(e.getMessage().startsWith("store." + key), e.getMessage());
  }
}
