package dev.cairn.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code store.wal_vfs} (decision 0016): auto by default, off from the environment, anything else refused. */
class WalVfsConfigTest {
  private static String walVfs(Map<String, String> env) {
    return ConfigLoader.load(null, env).raw().getJsonObject("store").getString("wal_vfs");
  }

  @Test
  void autoByDefaultOffFromTheEnvironment() {
    assertEquals("auto", walVfs(Map.of()));
    assertEquals("off", walVfs(Map.of("CAIRN_STORE_WAL_VFS", "off")));
  }

  @Test
  void anotherValueIsRefusedNamingTheKey() {
    ConfigException e = assertThrows(ConfigException.class, () -> walVfs(Map.of("CAIRN_STORE_WAL_VFS", "on")));
    assertTrue(e.getMessage().contains("store.wal_vfs"), e.getMessage());
  }
}
