package dev.cairn.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import org.junit.jupiter.api.Test;

/**
 * {@code tls.engine}: the choice on a machine with and without netty-tcnative (the end-to-end
 * handshakes with both engines are {@code TlsTest}; this covers the fallback, which the build
 * machine, where BoringSSL loads, cannot reach otherwise).
 */
class TlsEngineTest {
  private static final Throwable MISSING = new UnsatisfiedLinkError("no netty_tcnative_linux_aarch_64");

  @Test
  void autoTakesOpenSslWhenItLoads() {
    TlsEngine e = TlsEngine.choose("auto", true, null);
    assertTrue(e.openSsl());
    assertTrue(e.description().startsWith("OpenSSL ("), e.description());
    assertInstanceOf(OpenSSLEngineOptions.class, e.options());
  }

  @Test
  void autoFallsBackToTheJdkAndSaysWhy() {
    TlsEngine e = TlsEngine.choose("auto", false, MISSING);
    assertFalse(e.openSsl());
    assertEquals("JDK SSL (OpenSSL unavailable: " + MISSING + ")", e.description());
    assertInstanceOf(JdkSSLEngineOptions.class, e.options());
  }

  @Test
  void jdkIsTheJdkEvenWhenOpenSslLoads() {
    TlsEngine e = TlsEngine.choose("jdk", true, null);
    assertFalse(e.openSsl());
    assertEquals("JDK SSL (tls.engine = jdk)", e.description());
    assertInstanceOf(JdkSSLEngineOptions.class, e.options());
  }

  @Test
  void opensslWithoutItRefusesToStart() {
    assertTrue(TlsEngine.choose("openssl", true, null).openSsl());
    IllegalStateException x = assertThrows(IllegalStateException.class, () -> TlsEngine.choose("openssl", false, MISSING));
    assertTrue(x.getMessage().contains("not available") && x.getMessage().contains("aarch_64"), x.getMessage());
  }
}
