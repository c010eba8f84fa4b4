package dev.cairn.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code tls.*} and {@code http.header_timeout}: defaults, env overrides and what is refused at load. */
class TlsConfigTest {
  @Test
  void defaults() {
    CairnConfig c = ConfigLoader.load(null, Map.of());
    assertEquals("", c.tlsCert());
    assertEquals("auto", c.tlsEngine());
    assertEquals(Duration.ofSeconds(10), c.headerTimeout());
  }

  @Test
  void envOverrides() {
    CairnConfig c = ConfigLoader.load(null, Map.of("CAIRN_TLS_CERT", "/c.pem", "CAIRN_TLS_KEY", "/k.pem",
        "CAIRN_TLS_ENGINE", "jdk", "CAIRN_HTTP_HEADER_TIMEOUT", "2500ms"));
    assertEquals("/c.pem", c.tlsCert());
    assertEquals("/k.pem", c.tlsKey());
    assertEquals("jdk", c.tlsEngine());
    assertEquals(Duration.ofMillis(2500), c.headerTimeout());
    assertEquals(Duration.ZERO, ConfigLoader.load(null, Map.of("CAIRN_HTTP_HEADER_TIMEOUT", "0s")).headerTimeout());
  }

  @Test
  void refused() {
    assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(null, Map.of("CAIRN_TLS_ENGINE", "boring")))
        .getMessage().contains("tls.engine"));
    assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(null, Map.of("CAIRN_TLS_CERT", "/c.pem")))
        .getMessage().contains("tls.key"));
    assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(null, Map.of("CAIRN_TLS_KEY", "/k.pem")))
        .getMessage().contains("tls.cert"));
    assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(null, Map.of("CAIRN_HTTP_HEADER_TIMEOUT", "50ms")))
        .getMessage().contains("http.header_timeout"));
    assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(null, Map.of("CAIRN_HTTP_HEADER_TIMEOUT", "soon")))
        .getMessage().contains("http.header_timeout"));
  }
}
