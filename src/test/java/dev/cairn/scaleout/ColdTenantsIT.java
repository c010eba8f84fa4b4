package dev.cairn.scaleout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.feed.SseClient;
import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Seed 003's "no wakeups of cold tenant databases", counted on the wire: a pod serves 50 tenants (each
 * in its own MariaDB database) through a MySQL protocol proxy that counts connections and statements per
 * database. Two tenants are written, swept (NIP-40) and read all through the window; ten idle tenants have
 * SSE clients connected all through it. The idle tenants' databases must see zero statements and zero
 * new connections in the window ({@code cairn.coldTenants.window}, default 120 s as issue 10 asks).
 */
class ColdTenantsIT {
  private static final int TENANTS = 50;
  private static final Duration WINDOW =
      Duration.ofSeconds(Long.getLong("cairn.coldTenants.window", 120));

  @Test
  void idleTenantsDatabasesGetNoQueryWhileActiveOnesAreWrittenSweptAndServed() throws Exception {
    try (Cluster cluster = new Cluster();
        MysqlCountingProxy proxy = MysqlCountingProxy.start(cluster.vertx, "127.0.0.1", 3306)) {
      JsonArray tenants = new JsonArray();
      for (int i = 0; i < TENANTS; i++) {
        tenants.add(new JsonObject().put("id", tenant(i)));
      }
      Path config = Files.writeString(cluster.dir.resolve("cold.json"), new JsonObject()
          .put("tenants", tenants)
          .put("store", new JsonObject().put("expiry_sweep_interval", "5s"))
          .put("sse", new JsonObject().put("heartbeat_interval", "2s"))
          .encodePrettily());
      String hostPort = cluster.server.substring(cluster.server.indexOf('@') + 1);
      String user = cluster.server.substring("mysql://".length(), cluster.server.indexOf('@'));
      Pod pod = cluster.start("pod-cold", Map.of(
          "CAIRN_FEED_LIVENESS_POLL", System.getProperty("cairn.coldTenants.liveness", "0s"),
          "CAIRN_STORE_URL", "mysql://" + user + "@127.0.0.1:" + proxy.port() + "/" + cluster.metaDb), config);

      // Ten idle tenants get SSE clients (their one bounds read happens at open, before the window).
      List<SseClient> idleClients = new ArrayList<>();
      for (int i = 10; i < 20; i++) {
        SseClient c = SseClient.open("http://127.0.0.1:" + pod.port + "/t/" + tenant(i) + "/v1/events");
        SseClient.Frame f;
        do {
          f = c.next(Duration.ofSeconds(30));
        } while (!f.event().equals("heartbeat"));
        idleClients.add(c);
      }
      // Two active tenants: a writer each, a REQ reader each, events that expire (the NIP-40 sweep).
      EventSigner signer = EventSigner.random();
      List<WebSocket> sockets = new ArrayList<>();
      // Held for the sockets' life: Vert.x 5 closes a client's sockets once the client is unreachable.
      WebSocketClient client = cluster.vertx.createWebSocketClient();
      for (int i = 0; i < 2; i++) {
        sockets.add(client.connect(pod.port, "127.0.0.1", "/t/" + tenant(i))
            .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
      }
      AtomicInteger oks = new AtomicInteger();
      List<String> refused = java.util.Collections.synchronizedList(new ArrayList<>());
      sockets.forEach(ws -> ws.closeHandler(v -> refused.add("socket closed: " + ws.closeStatusCode() + " "
          + ws.closeReason())));
      sockets.forEach(ws -> ws.textMessageHandler(t -> {
        if (t.startsWith("[\"CLOSED\"") || t.startsWith("[\"NOTICE\"")) {
          if (refused.size() < 5) {
            refused.add(t);
          }
        }
        if (t.startsWith("[\"OK\"")) {
          if (t.contains(",true")) {
            oks.incrementAndGet();
          } else if (refused.size() < 5) {
            refused.add(t);
          }
        }
      }));
      Thread.sleep(2_000); // let start-up reads (delivery's first look at every tenant) finish
      proxy.reset();

      long end = System.nanoTime() + WINDOW.toNanos();
      int sent = 0;
      while (System.nanoTime() < end) {
        long now = System.currentTimeMillis() / 1000;
        for (WebSocket ws : sockets) {
          NostrEvent e = signer.sign(now, 1, List.of(List.of("expiration", String.valueOf(now + 3))), "n" + sent++);
          ws.writeTextMessage("[\"EVENT\"," + new String(e.json(), StandardCharsets.UTF_8) + "]");
          ws.writeTextMessage("[\"REQ\",\"r\",{\"kinds\":[1],\"limit\":5}]"); // replaces the previous one
        }
        Thread.sleep(250);
      }

      Map<String, String> idle = new LinkedHashMap<>();
      for (int i = 10; i < 20; i++) {
        String db = cluster.metaDb + "_t_" + tenant(i);
        MysqlCountingProxy.Counts c = proxy.counts(db);
        if (c.statements.get() != 0 || c.connections.get() != 0) {
          idle.put(db, c + ", first: " + c.prepared.stream().limit(2).toList());
        }
      }
      assertEquals(Map.of(), idle, "idle tenants' databases were queried during the window");
      for (int i = 0; i < 2; i++) {
        MysqlCountingProxy.Counts c = proxy.counts(cluster.metaDb + "_t_" + tenant(i));
        assertTrue(c.statements.get() > 0, "active tenant " + tenant(i) + " was written and read");
        assertTrue(c.prepared.stream().anyMatch(sql -> sql.contains("expiration <=")),
            "active tenant " + tenant(i) + " was swept (NIP-40): " + c.prepared.size() + " statements");
      }
      assertTrue(oks.get() >= sent * 9 / 10, "writes were accepted: " + oks.get() + " of " + sent + "; refused: "
          + refused);
      for (SseClient c : idleClients) {
        c.close();
      }
      client.close();
      System.out.printf("cold tenants: %d s window, %d writes on 2 active tenants; idle tenant DBs: 0 statements,"
          + " 0 connections; meta DB: %s%n", WINDOW.toSeconds(), sent, proxy.counts(cluster.metaDb));
    }
  }

  private static String tenant(int i) {
    return String.format("t%02d", i);
  }
}
