package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Tenant routing and isolation (CONTRACT section 2): /t/acme, Host mapping, 404 for unknown tenants. */
class TenantsTest {
  private static TestRelay relay;
  private static final HttpClient HTTP = TestRelay.http();
  private static final EventSigner SIGNER = EventSigner.random();
  private static JsonObject inDefault;
  private static JsonObject inAcme;

  @BeforeAll
  static void start() throws Exception {
    JsonObject config = new JsonObject()
        .put("relay", new JsonObject().put("name", "Main Relay"))
        .put("tenants", new JsonArray().add(new JsonObject()
            .put("id", "acme").put("name", "Acme").put("hosts", new JsonArray().add("acme.example"))));
    relay = TestRelay.start(config, Map.of());
    inDefault = Events.note(SIGNER, "for the default tenant", List.of());
    inAcme = Events.note(SIGNER, "for acme", List.of());
    try (RelayClient d = relay.connect(); RelayClient a = relay.connect("/t/acme")) {
      assertTrue(d.publishAndWait(inDefault).getBoolean(2));
      assertTrue(a.publishAndWait(inAcme).getBoolean(2));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (relay != null) {
      relay.close();
    }
  }

  private static JsonObject bothIds() {
    return new JsonObject().put("ids", new JsonArray().add(inDefault.getString("id")).add(inAcme.getString("id")));
  }

  private static List<String> ids(List<JsonObject> events) {
    return events.stream().map(e -> e.getString("id")).toList();
  }

  private static HttpResponse<String> get(String path, String accept) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(relay.httpUrl() + path));
    if (accept != null) {
      b.header("Accept", accept);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A raw HTTP/1.1 GET with an arbitrary Host header; returns the whole response text. */
  private static String rawGet(String path, String host, String accept) throws Exception {
    try (Socket s = new Socket("127.0.0.1", relay.port())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAccept: " + accept
          + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      in.transferTo(buf);
      return buf.toString(StandardCharsets.UTF_8);
    }
  }

  @Test
  void eventsAreIsolatedPerTenant() throws Exception {
    try (RelayClient d = relay.connect(); RelayClient a = relay.connect("/t/acme")) {
      assertEquals(List.of(inDefault.getString("id")), ids(d.query("q", bothIds())),
          "the default tenant sees only its own event");
      assertEquals(List.of(inAcme.getString("id")), ids(a.query("q", bothIds())),
          "acme sees only its own event");
      // Live events do not cross either: a watcher on default sees default's event first, not acme's.
      try (RelayClient watcher = relay.connect()) {
        watcher.req("live", new JsonObject().put("authors", new JsonArray().add(SIGNER.pubkey())).put("limit", 0));
        assertEquals("EOSE", watcher.await(f -> "live".equals(f.getValue(1))).getString(0));
        JsonObject later = Events.note(SIGNER, "acme live", List.of());
        assertTrue(a.publishAndWait(later).getBoolean(2));
        JsonObject marker = Events.note(SIGNER, "default live", List.of());
        assertTrue(d.publishAndWait(marker).getBoolean(2));
        JsonArray live = watcher.await(f -> "live".equals(f.getValue(1)));
        assertEquals("EVENT", live.getString(0), live.encode());
        assertEquals(marker.getString("id"), live.getJsonObject(2).getString("id"),
            "the first live event on default must be its own, not acme's");
      }
    }
  }

  @Test
  void eachTenantHasItsOwnDbFile() throws Exception {
    if (TestDialect.mysql()) { // CONTRACT section 7: a dedicated tenant's database is <meta>_t_<tenant>
      String meta = TestDialect.metaDb(relay.dataDir());
      List<String> dbs = TestDialect.databases(relay.dataDir());
      assertTrue(dbs.containsAll(List.of(meta, meta + "_t_acme", meta + "_t_default")), dbs.toString());
      return;
    }
    Path tenants = relay.dataDir().resolve("tenants");
    Path acme = tenants.resolve("acme.db");
    Path dflt = tenants.resolve("default.db");
    assertTrue(Files.isRegularFile(acme), "missing " + acme);
    assertTrue(Files.isRegularFile(dflt), "missing " + dflt);
    assertFalse(Files.isSameFile(acme, dflt), "two distinct files");
    assertTrue(Files.size(acme) > 0 && Files.size(dflt) > 0);
  }

  @Test
  void unknownTenantIs404AndWebSocketRefused() throws Exception {
    HttpResponse<String> r = get("/t/nope", null);
    assertEquals(404, r.statusCode());
    assertTrue(r.body().contains("nope"), r.body());
    assertEquals(404, get("/t/nope", "application/nostr+json").statusCode());
    assertEquals(404, get("/t/nope/v1/events", null).statusCode());
    assertThrows(Exception.class, () -> relay.connect("/t/nope").close(),
        "the WebSocket upgrade to an unknown tenant must be refused");
  }

  @Test
  void nip11PerTenant() throws Exception {
    HttpResponse<String> acme = get("/t/acme", "application/nostr+json");
    assertEquals(200, acme.statusCode());
    assertEquals("Acme", new JsonObject(acme.body()).getString("name"));
    HttpResponse<String> dflt = get("/", "application/nostr+json");
    assertEquals(200, dflt.statusCode());
    assertEquals("Main Relay", new JsonObject(dflt.body()).getString("name"));
  }

  @Test
  void hostHeaderRoutesToTenantAtRoot() throws Exception {
    String viaHost = rawGet("/", "acme.example", "application/nostr+json");
    assertTrue(viaHost.startsWith("HTTP/1.1 200"), viaHost);
    String body = viaHost.substring(viaHost.indexOf("\r\n\r\n") + 4);
    assertEquals("Acme", new JsonObject(body).getString("name"), viaHost);
    // With a port in the Host header too.
    String withPort = rawGet("/", "acme.example:" + relay.port(), "application/nostr+json");
    assertTrue(withPort.contains("\"name\":\"Acme\""), withPort);
    // An unmapped host gets the default tenant.
    String other = rawGet("/", "other.example", "application/nostr+json");
    assertTrue(other.contains("\"name\":\"Main Relay\""), other);
  }

  @Test
  void hostHeaderRoutesWebSocketToTenant() throws Exception {
    Vertx vertx = Vertx.vertx();
    WebSocketClient client = vertx.createWebSocketClient(); // held to the end: see RelayClient#client
    try {
      WebSocket ws = client
          .connect(new WebSocketConnectOptions()
              .setHost("127.0.0.1").setPort(relay.port()).setURI("/")
              .putHeader("Host", "acme.example"))
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      LinkedBlockingQueue<JsonArray> frames = new LinkedBlockingQueue<>();
      ws.textMessageHandler(t -> frames.add(new JsonArray(t)));
      ws.writeTextMessage(new JsonArray().add("REQ").add("h").add(bothIds()).encode());
      List<String> got = new ArrayList<>();
      while (true) {
        JsonArray f = frames.poll(10, TimeUnit.SECONDS);
        assertTrue(f != null, "no EOSE within 10s");
        if (f.getString(0).equals("EOSE")) {
          break;
        }
        if (f.getString(0).equals("EVENT")) {
          got.add(f.getJsonObject(2).getString("id"));
        }
      }
      assertEquals(List.of(inAcme.getString("id")), got, "Host acme.example at / is the acme tenant");
    } finally {
      client.close();
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
