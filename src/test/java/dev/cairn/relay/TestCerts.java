package dev.cairn.relay;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throwaway self-signed certificate for TLS tests, made at test time with the JDK's keytool (no
 * key is committed): EC P-256, CN=localhost, SAN 127.0.0.1 and localhost, valid for 2 days. Written
 * as PEM ({@code cert.pem}, {@code key.pem} as PKCS#8), the way an operator gives them to Cairn.
 */
public record TestCerts(Path dir, Path cert, Path key, X509Certificate certificate) {

  public static TestCerts generate() throws Exception {
    Path dir = Files.createTempDirectory("cairn-tls");
    Path p12 = dir.resolve("test-only.p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "cairn", "-keyalg", "EC", "-groupname", "secp256r1",
        "-sigalg", "SHA256withECDSA", "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
        "-validity", "2", "-storetype", "PKCS12", "-keystore", p12.toString(),
        "-storepass", "test-only", "-keypass", "test-only")
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("keytool failed: " + out);
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(p12)) {
      ks.load(in, "test-only".toCharArray());
    }
    PrivateKey key = (PrivateKey) ks.getKey("cairn", "test-only".toCharArray());
    Certificate cert = ks.getCertificate("cairn");
    Files.delete(p12);
    Base64.Encoder b64 = Base64.getMimeEncoder(64, "\n".getBytes());
    Path certPem = dir.resolve("cert.pem");
    Path keyPem = dir.resolve("key.pem");
    Files.writeString(certPem, "-----BEGIN CERTIFICATE-----\n" + b64.encodeToString(cert.getEncoded())
        + "\n-----END CERTIFICATE-----\n");
    Files.writeString(keyPem, "-----BEGIN PRIVATE KEY-----\n" + b64.encodeToString(key.getEncoded())
        + "\n-----END PRIVATE KEY-----\n");
    return new TestCerts(dir, certPem, keyPem, (X509Certificate) cert);
  }

  /** An SSLContext that trusts this certificate only (host names are still verified). */
  public SSLContext clientContext() throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    trust.setCertificateEntry("cairn", certificate);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }

  public void delete() throws Exception {
    TestRelay.deleteTree(dir);
  }
}
