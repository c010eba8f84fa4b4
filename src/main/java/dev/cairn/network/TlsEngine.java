package dev.cairn.network;

import dev.cairn.config.CairnConfig;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.SSLEngineOptions;
import java.io.InputStream;
import java.util.Properties;

/**
 * The TLS implementation of the listeners ({@code tls.engine}): OpenSSL, i.e. BoringSSL through
 * netty-tcnative, when it is wanted and its native library loads; the JDK's SSLEngine otherwise.
 * {@link #description} is what the start log says; {@link #used} tells which engine a live
 * connection really has, so the listener can check its first handshake against the choice.
 */
record TlsEngine(boolean openSsl, String description) {
  static final String OPENSSL = "OpenSSL";
  static final String JDK = "JDK SSL";

  /** The engine for {@code setting} ({@code auto}, {@code openssl} or {@code jdk}) on this machine. */
  static TlsEngine choose(String setting) {
    return choose(setting, OpenSsl.isAvailable(), OpenSsl.unavailabilityCause());
  }

  /**
   * The choice itself: {@code available}/{@code cause} are netty-tcnative's. {@code openssl} without it
   * fails (the operator asked for it); {@code auto} falls back to the JDK and says why.
   */
  static TlsEngine choose(String setting, boolean available, Throwable cause) {
    return switch (setting) {
      case CairnConfig.TLS_JDK -> new TlsEngine(false, JDK + " (tls.engine = jdk)");
      case CairnConfig.TLS_OPENSSL -> {
        if (!available) {
          throw new IllegalStateException("tls.engine = openssl, but OpenSSL (netty-tcnative) is not available: "
              + cause);
        }
        yield new TlsEngine(true, openSslName());
      }
      default -> available ? new TlsEngine(true, openSslName())
          : new TlsEngine(false, JDK + " (OpenSSL unavailable: " + cause + ")");
    };
  }

  /** What Vert.x builds its SslContext with. */
  SSLEngineOptions options() {
    return openSsl ? new OpenSSLEngineOptions() : new JdkSSLEngineOptions();
  }

  /** {@link #OPENSSL} or {@link #JDK}: the engine of the connection whose pipeline this is; null without TLS. */
  static String used(ChannelPipeline pipeline) {
    SslHandler ssl = pipeline == null ? null : pipeline.get(SslHandler.class);
    if (ssl == null) {
      return null;
    }
    return ssl.engine() instanceof ReferenceCountedOpenSslEngine ? OPENSSL : JDK;
  }

  /** E.g. "OpenSSL (BoringSSL, netty-tcnative 2.0.74.Final)". */
  private static String openSslName() {
    String tcnative = tcnativeVersion();
    return OPENSSL + " (" + OpenSsl.versionString() + (tcnative == null ? "" : ", netty-tcnative " + tcnative) + ")";
  }

  /** From the jar's Maven metadata, which the shaded jar keeps (its manifests are merged away). */
  private static String tcnativeVersion() {
    for (String artifact : new String[] {"netty-tcnative-boringssl-static", "netty-tcnative", "netty-tcnative-classes"}) {
      try (InputStream in = OpenSsl.class.getClassLoader()
          .getResourceAsStream("META-INF/maven/io.netty/" + artifact + "/pom.properties")) {
        if (in != null) {
          Properties p = new Properties();
          p.load(in);
          String v = p.getProperty("version");
          if (v != null) {
            return v;
          }
        }
      } catch (Exception e) {
        // no version to show
      }
    }
    return null;
  }
}
