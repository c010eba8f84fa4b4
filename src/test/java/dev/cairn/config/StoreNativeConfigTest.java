package dev.cairn.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The SQLite store's native helpers: {@code store.wal_vfs} (decision 0016) and
 * {@code store.thread_priority} (decision 0017): auto by default, off from the environment, anything
 * else refused naming the key.
 */
class StoreNativeConfigTest {
  private static String value(String key, Map<String, String> env) {
    return ConfigLoader.load(null, env).raw().getJsonObject("store").getString(key);
  }

  private static String envName(String key) {
    return "CAIRN_STORE_" + key.toUpperCase(java.util.Locale.ROOT);
  }

  @ParameterizedTest
  @ValueSource(strings = {"wal_vfs", "thread_priority"})
  void autoByDefaultOffFromTheEnvironment(String key) {
    assertEquals("auto", value(key, Map.of()));
    assertEquals("off", value(key, Map.of(envName(key), "off")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"wal_vfs", "thread_priority"})
  void anotherValueIsRefusedNamingTheKey(String key) {
    ConfigException e = assertThrows(ConfigException.class, () -> value(key, Map.of(envName(key), "on")));
    assertTrue(e.getMessage().contains("store." + key), e.getMessage());
  }
}
