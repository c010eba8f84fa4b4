package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The start-up warm-up (decision 0011) runs to its end before the relay listens, on plain and TLS
 * listeners, and leaves nothing behind: no stored event, no subscription, no temporary store.
 */
class StartupWarmupTest {
  private static final Logger NETWORK_LOG = Logger.getLogger("dev.cairn.network.NetworkManager");
  private static final Logger STORE_LOG = Logger.getLogger("dev.cairn.store.DatabaseEngine");
  private static final Pattern TRAFFIC = Pattern.compile("start-up warm-up: (\\d+) (?:events published to its own"
      + " tenant (warmup-[0-9a-f]+) \\(notes and reactions stored, a fifth ephemeral; |ephemeral events published \\()"
      + "(\\d+) accepted\\), (\\d+) of (\\d+) deliveries to 50 subscribers and (\\d+) short sessions \\(REQ, COUNT,"
      + " CLOSE\\), the first round and (\\d+) settling round\\(s\\)");
  private static final EventSigner SIGNER = EventSigner.random();
  private final List<String> logged = new CopyOnWriteArrayList<>();
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord r) {
      logged.add(r.getMessage());
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  @BeforeEach
  void listen() {
    NETWORK_LOG.addHandler(capture);
    STORE_LOG.addHandler(capture);
  }

  @AfterEach
  void stopListening() {
    NETWORK_LOG.removeHandler(capture);
    STORE_LOG.removeHandler(capture);
  }

  @Test
  void theWarmupRunsToItsEndAndLeavesNothingBehind() throws Exception {
    try (TestRelay relay = TestRelay.start(new JsonObject(), Map.of("CAIRN_STARTUP_WARMUP", "1s"))) {
      String tenant = assertRanToTheEnd();
      // SQLite: its events went to a tenant of its own, which is gone: unknown, no file, no meter
      assertEquals(!TestDialect.mysql(), tenant != null, "a tenant of its own on SQLite only: " + logged);
      if (tenant != null) {
        assertEquals(404, TestRelay.http().send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(relay.httpUrl() + "/t/" + tenant + "/")).header("Accept", "application/nostr+json").build(),
            java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode(), "its tenant is unknown once it is over");
        try (Stream<java.nio.file.Path> files = java.nio.file.Files.list(relay.dataDir().resolve("tenants"))) {
          assertEquals(List.of(), files.map(f -> f.getFileName().toString()).filter(n -> !n.startsWith("default."))
              .toList(), "only the default tenant's files in the store");
        }
      }
      // the store's part warms the SQLite write path; tenants in MySQL have none of it
      assertEquals(!TestDialect.mysql(), logged.stream().anyMatch(l -> l.startsWith("start-up warm-up: 2000 events stored")),
          "the store's part ran on SQLite only: " + logged);
      assertEquals(Set.of(), warmupDirs(relay), "the throwaway stores are deleted");

      try (RelayClient client = RelayClient.connect(relay.port(), "/")) {
        // nothing of the warm-up is stored: the store is empty
        assertEquals(List.of(), client.query("all", new JsonObject().put("limit", 1000)));
        // and the relay serves: an event stored and read back, an ephemeral one relayed live
        JsonObject note = Events.note(SIGNER, "after the warm-up", List.of());
        JsonArray ok = client.publishAndWait(note);
        assertTrue(ok.getBoolean(2), ok.encode());
        assertEquals(List.of(note), client.query("mine", new JsonObject().put("authors",
            new JsonArray().add(SIGNER.pubkey()))));
      }
      if (tenant != null) {
        // the default tenant's meters count the client's event only, and none of the warm-up tenant's are left
        String metrics = relay.metrics();
        assertTrue(metrics.contains("cairn_events_received_total{result=\"accepted\",tenant=\"default\"} 1.0"), metrics);
        assertEquals(List.of(), metrics.lines().filter(l -> l.contains(tenant)).toList(), "no meter of its tenant left");
      }
    }
  }

  @Test
  void overTlsTheWarmupTalksToItsOwnCertificate() throws Exception {
    TestCerts certs = TestCerts.generate();
    try (TestRelay relay = TestRelay.start(new JsonObject(), Map.of("CAIRN_STARTUP_WARMUP", "1s",
        "CAIRN_TLS_CERT", certs.cert().toString(), "CAIRN_TLS_KEY", certs.key().toString()))) {
      assertRanToTheEnd();
      WebSocketClientOptions wss = new WebSocketClientOptions().setSsl(true)
          .setTrustOptions(new PemTrustOptions().addCertPath(certs.cert().toString()));
      try (RelayClient client = RelayClient.connect(relay.port(), "/", wss)) {
        assertEquals(List.of(), client.query("all", new JsonObject().put("limit", 1000)));
      }
    } finally {
      certs.delete();
    }
  }

  @Test
  void aWritePolicyPluginNeverSeesTheWarmupsEvents() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("cairn-plugins");
    JsonArray plugin = new JsonArray().add("node").add(Plugins.install(dir, "behave.js").toString());
    JsonObject config = new JsonObject().put("policy", new JsonObject().put("plugin", plugin));
    try (TestRelay relay = TestRelay.start(config, Map.of("CAIRN_STARTUP_WARMUP", "1s"))) {
      if (TestDialect.mysql()) { // its events would go to the default tenant, whose plugin would judge them
        assertTrue(logged.stream().anyMatch(l -> l.startsWith("start-up warm-up skipped: a write-policy plugin")),
            "skipped with its reason: " + logged);
        assertTrue(logged.stream().noneMatch(l -> TRAFFIC.matcher(l).find()), "no warm-up traffic: " + logged);
      } else { // its own tenant has no plugin (a config-file tenant's plugin is the default tenant's alone)
        assertTrue(assertRanToTheEnd() != null);
        assertEquals(Set.of(), warmupDirs(relay), "its tenant's store is deleted");
        assertEquals(0.0, Plugins.requests(relay, "default", "accept"), "the plugin was asked about none of its events");
        try (RelayClient client = RelayClient.connect(relay.port(), "/")) {
          JsonArray ok = client.publishAndWait(Events.note(SIGNER, "judged by the plugin", List.of()));
          assertTrue(ok.getBoolean(2), ok.encode());
        }
        assertEquals(1.0, Plugins.requests(relay, "default", "accept"), "a client's event is put to the plugin");
      }
    } finally {
      java.nio.file.Files.walk(dir).sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }

  @Test
  void withPerIpRateLimitsTheWarmupIsSkipped() throws Exception {
    JsonObject config = new JsonObject().put("policy", new JsonObject().put("rate", new JsonObject()
        .put("connections_per_ip", new JsonObject().put("per_second", 1).put("burst", 20))));
    try (TestRelay relay = TestRelay.start(config, Map.of("CAIRN_STARTUP_WARMUP", "1s"))) {
      assertTrue(logged.stream().anyMatch(l -> l.startsWith("start-up warm-up skipped: per-IP rate limits")),
          "skipped with its reason: " + logged);
      // 127.0.0.1's bucket is whole: 20 connections in a row are let in
      for (int i = 0; i < 20; i++) {
        try (RelayClient client = RelayClient.connect(relay.port(), "/")) {
          assertEquals(List.of(), client.query("q" + i, new JsonObject().put("limit", 1)));
        }
      }
    }
  }

  /**
   * The traffic report: every event accepted, every delivery made, short sessions beside them, not stopped
   * early. Returns its own tenant's id (null: none, the default tenant's ephemeral events only).
   */
  private String assertRanToTheEnd() {
    String report = logged.stream().filter(l -> TRAFFIC.matcher(l).find()).findFirst()
        .orElseThrow(() -> new AssertionError("no warm-up report in " + logged));
    Matcher m = TRAFFIC.matcher(report);
    assertTrue(m.find());
    // 1 s at 1,000 events/s to 50 subscribers, then settling rounds of 2,000 events with none
    int settling = Integer.parseInt(m.group(7));
    assertTrue(settling >= 1, report);
    assertEquals(1000 + 2000 * settling, Integer.parseInt(m.group(1)), report);
    assertEquals(m.group(1), m.group(3), report);
    assertEquals(m.group(5), m.group(4), report);
    assertEquals(50_000, Long.parseLong(m.group(5)), report);
    assertTrue(Integer.parseInt(m.group(6)) > 0, report);
    assertTrue(!report.contains("stopped early"), report);
    return m.group(2);
  }

  /** The warm-up's stores in the relay's scratch directory (decision 0019). */
  private static Set<String> warmupDirs(TestRelay relay) {
    File scratch = dev.cairn.store.ScratchDir.of(relay.dataDir()).toFile();
    assertTrue(scratch.isDirectory(), scratch + " is where they would be");
    File[] files = scratch.listFiles((d, n) -> n.startsWith("warmup"));
    return files == null ? Set.of() : Stream.of(files).map(File::getName).collect(Collectors.toSet());
  }
}
