package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.netty.handler.ssl.OpenSsl;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The listener over TLS, end to end, with a self-signed certificate made at test time, once with
 * each engine: {@code tls.engine=auto} (BoringSSL through netty-tcnative, bundled for linux-x86_64)
 * and {@code tls.engine=jdk}. A {@code wss://} client publishes, queries and gets a live event (the
 * listener writes those frames raw into the Netty pipeline: the SslHandler must encrypt them), an
 * {@code https://} SSE client gets the stored frame, NIP-11 and the status page answer over https,
 * and the start log names the engine the first handshake really used.
 */
@Timeout(120)
class TlsTest {
  /** The listener's logger, held so its level and handler stay while the test runs. */
  private static final Logger LISTENER_LOG = Logger.getLogger("dev.cairn.network.Listener");
  private static final List<String> LOGGED = new CopyOnWriteArrayList<>();
  private static final Handler CAPTURE = new Handler() {
    @Override
    public void publish(LogRecord r) {
      LOGGED.add(r.getLevel() + " " + r.getMessage());
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private static final EventSigner SIGNER = EventSigner.random();
  private static TestCerts certs;
  private static Level oldLevel;

  @BeforeAll
  static void setUp() throws Exception {
    certs = TestCerts.generate();
    oldLevel = LISTENER_LOG.getLevel();
    LISTENER_LOG.setLevel(Level.FINE);
    LISTENER_LOG.addHandler(CAPTURE);
  }

  @AfterAll
  static void tearDown() throws Exception {
    LISTENER_LOG.removeHandler(CAPTURE);
    LISTENER_LOG.setLevel(oldLevel);
    certs.delete();
  }

  @ParameterizedTest
  @ValueSource(strings = {"auto", "jdk"})
  void wssHttpsSseAndNip11OverTls(String engine) throws Exception {
    String expected = engine.equals("jdk") || !OpenSsl.isAvailable() ? "JDK SSL" : "OpenSSL";
    if (engine.equals("auto") && System.getProperty("os.name").startsWith("Linux")
        && Set.of("amd64", "x86_64").contains(System.getProperty("os.arch"))) {
      // the linux-x86_64 netty-tcnative jar is a dependency: here "auto" must really get BoringSSL
      assertTrue(OpenSsl.isAvailable(), "netty-tcnative does not load: " + OpenSsl.unavailabilityCause());
      assertEquals("BoringSSL", OpenSsl.versionString());
    }
    LOGGED.clear();
    JsonObject config = new JsonObject()
        .put("http", new JsonObject().put("header_timeout", "1s"))
        .put("relay", new JsonObject().put("name", "TLS Relay"));
    try (TestRelay relay = TestRelay.start(config, Map.of(
        "CAIRN_TLS_CERT", certs.cert().toString(),
        "CAIRN_TLS_KEY", certs.key().toString(),
        "CAIRN_TLS_ENGINE", engine))) {
      int port = relay.port();
      String started = LOGGED.stream().filter(l -> l.contains("TLS on 127.0.0.1:" + port + " with ")).findFirst()
          .orElseThrow(() -> new AssertionError("no TLS start line for port " + port + " in " + LOGGED));
      assertTrue(started.startsWith("INFO TLS on 127.0.0.1:" + port + " with " + expected), started);
      if (expected.equals("OpenSSL")) {
        assertTrue(started.contains("BoringSSL") && started.contains("netty-tcnative 2.0."), started);
      }

      WebSocketClientOptions wss = new WebSocketClientOptions().setSsl(true)
          .setTrustOptions(new PemTrustOptions().addCertPath(certs.cert().toString()));
      try (RelayClient watcher = RelayClient.connect(port, "/", new WebSocketClientOptions(wss));
          RelayClient publisher = RelayClient.connect(port, "/", new WebSocketClientOptions(wss))) {
        watcher.req("live", new JsonObject().put("authors", new JsonArray().add(SIGNER.pubkey())).put("limit", 0));
        assertEquals("EOSE", watcher.awaitType("EOSE").getString(0));

        // Stored, then queried back: OK, EVENT and EOSE come through the raw-frame path. The events are
        // large enough that one write spans several TLS records.
        List<JsonObject> sent = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
          JsonObject e = Events.note(SIGNER, i + " " + "x".repeat(20_000), List.of());
          JsonArray ok = publisher.publishAndWait(e);
          assertTrue(ok.getBoolean(2), ok.encode());
          sent.add(e);
        }
        List<JsonObject> got = publisher.query("q", new JsonObject().put("authors", new JsonArray().add(SIGNER.pubkey())));
        assertEquals(sent.stream().map(e -> e.getString("id")).collect(Collectors.toSet()),
            got.stream().map(e -> e.getString("id")).collect(Collectors.toSet()));
        assertEquals(sent.get(0), got.stream().filter(e -> e.getString("id").equals(sent.get(0).getString("id")))
            .findFirst().orElseThrow(), "the event comes back byte for byte");

        // Live fan-out (the Deliver path), also after the subscriber sat idle longer than http.header_timeout.
        for (JsonObject e : sent) {
          JsonArray live = watcher.await(f -> "live".equals(f.getValue(1)));
          assertEquals(e.getString("id"), live.getJsonObject(2).getString("id"));
        }
        Thread.sleep(1_800);
        JsonObject later = Events.note(SIGNER, "after an idle while", List.of());
        assertTrue(publisher.publishAndWait(later).getBoolean(2));
        assertEquals(later.getString("id"), watcher.await(f -> "live".equals(f.getValue(1))).getJsonObject(2).getString("id"));
        assertTrue(!watcher.isClosed(), "an idle wss:// subscriber is not cut by the header timeout");

        // The first handshake used the engine the start line announced.
        assertTrue(LOGGED.contains("FINE TLS on 127.0.0.1:" + port + ": the first handshake used " + expected), LOGGED.toString());
        assertTrue(LOGGED.stream().noneMatch(l -> l.startsWith("WARNING")), LOGGED.toString());

        // https:// SSE: the stored frame of the first event, replayed from seq 0.
        HttpClient https = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .sslContext(certs.clientContext()).connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<InputStream> sse = https.send(HttpRequest.newBuilder(
            URI.create("https://127.0.0.1:" + port + "/v1/events?since=0")).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, sse.statusCode());
        assertTrue(sse.headers().firstValue("content-type").orElse("").startsWith("text/event-stream"));
        try (BufferedReader in = new BufferedReader(new InputStreamReader(sse.body(), StandardCharsets.UTF_8))) {
          JsonObject stored = storedFrame(in, sent.get(0).getString("id"));
          assertEquals(sent.get(0), stored.getJsonObject("event"));
        }

        // NIP-11 and the status page over https.
        HttpResponse<String> nip11 = https.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/"))
            .header("Accept", "application/nostr+json").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, nip11.statusCode());
        assertEquals("TLS Relay", new JsonObject(nip11.body()).getString("name"));
        HttpResponse<String> page = https.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("wss://127.0.0.1:" + port), "the status page shows the wss:// URL");
      }

      // A TCP client that never starts its TLS handshake is cut by the handshake timeout (= header timeout).
      try (Socket raw = new Socket("127.0.0.1", port)) {
        raw.setSoTimeout(10_000);
        long t0 = System.nanoTime();
        assertEquals(-1, raw.getInputStream().read(), "closed without a byte");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 4_000, "closed after " + ms + " ms");
      }
    }
  }

  /** Reads SSE frames until the {@code stored} frame of event {@code id}; returns its data. */
  private static JsonObject storedFrame(BufferedReader in, String id) throws Exception {
    String event = null;
    StringBuilder data = new StringBuilder();
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isEmpty()) {
        if ("stored".equals(event)) {
          JsonObject d = new JsonObject(data.toString());
          if (id.equals(d.getJsonObject("event").getString("id"))) {
            return d;
          }
        }
        event = null;
        data.setLength(0);
      } else if (line.startsWith("event: ")) {
        event = line.substring(7);
      } else if (line.startsWith("data: ")) {
        data.append(line.substring(6));
      }
    }
    throw new AssertionError("the SSE stream ended before the stored frame of " + id);
  }
}
