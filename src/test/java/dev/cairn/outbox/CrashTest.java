package dev.cairn.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.Events;
import dev.cairn.relay.TestDialect;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * kill -9 under a publish load: the server runs as a child JVM ({@code dev.cairn.Main}, the same entry
 * point as {@code java -jar target/cairn.jar}, from this build's classpath so it is never stale), is
 * killed with SIGKILL while clients publish, and restarted on the same data directory.
 */
class CrashTest {
  static final HttpClient HTTP = HttpClient.newHttpClient();

  private static Process startServer(Path data, Path config, int port, Path log) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "dev.cairn.Main",
        "--config", config.toString());
    pb.environment().put("CAIRN_HTTP_PORT", String.valueOf(port));
    dev.cairn.relay.TestRelay.noWarmup(pb.environment());
    pb.environment().put("CAIRN_STORE_DIR", data.toString());
    TestDialect.apply(data, pb.environment()); // on the MySQL test dialect: the same meta DB on both starts
    pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    Process p = pb.start();
    OutboxDb.await("server ready on " + port, 60, () -> {
      if (!p.isAlive()) {
        throw new AssertionError("server exited: " + Files.readString(log));
      }
      try {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz")).build(),
            HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
      } catch (java.io.IOException e) {
        return false;
      }
    });
    return p;
  }

  @Test
  void killNineUnderLoadLosesNoOutboxRowAndRunsNoHandlerTwicePerLifetime() throws Exception {
    Path data = Files.createTempDirectory("cairn-crash");
    Path log = data.resolve("server.log");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try (FakeUpstream upstream = new FakeUpstream(false)) {
      Path config = data.resolve("cairn.json");
      Files.writeString(config, new JsonObject()
          .put("outbox", new JsonObject().put("backend", "db").put("claim_lease", "2s").put("ledger_lease", "2s"))
          .put("forward", new JsonObject().put("relays", new JsonArray().add(upstream.url()))).encode());
      Process server = startServer(data, config, port, log);

      Set<String> okd = ConcurrentHashMap.newKeySet();
      AtomicBoolean stop = new AtomicBoolean();
      Vertx vertx = Vertx.vertx();
      List<Thread> publishers = new ArrayList<>();
      List<WebSocketClient> clients = new ArrayList<>(); // held: Vert.x 5 closes an unreachable client's sockets
      for (int c = 0; c < 4; c++) {
        EventSigner signer = EventSigner.random();
        WebSocketClient wsc = vertx.createWebSocketClient();
        clients.add(wsc);
        WebSocket ws = wsc.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/"))
            .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        ws.textMessageHandler(t -> {
          JsonArray a = new JsonArray(t);
          if ("OK".equals(a.getString(0)) && a.getBoolean(2)) {
            okd.add(a.getString(1));
          }
        });
        Thread th = new Thread(() -> {
          int i = 0;
          while (!stop.get() && !ws.isClosed()) {
            ws.writeTextMessage(new JsonArray().add("EVENT")
                .add(Events.note(signer, "crash load " + i++, List.of())).encode());
            try {
              Thread.sleep(1);
            } catch (InterruptedException e) {
              return;
            }
          }
        });
        th.start();
        publishers.add(th);
      }
      OutboxDb.await("load running", 60, () -> okd.size() >= 400);
      server.destroyForcibly(); // SIGKILL
      server.waitFor(30, TimeUnit.SECONDS);
      long killedAt = System.currentTimeMillis();
      stop.set(true);
      for (Thread th : publishers) {
        th.join(10_000);
      }
      clients.forEach(WebSocketClient::close);
      vertx.close();
      Set<String> acknowledged = Set.copyOf(okd);

      server = startServer(data, config, port, log);
      try {
        Path db = OutboxDb.tenantDb(data, "default");
        // Every OK'd event is stored, and every stored event has exactly one EventStored row.
        for (String id : acknowledged) {
          assertEquals(1, OutboxDb.count(db, "SELECT COUNT(*) FROM events WHERE id = unhex(?)", id), "lost " + id);
        }
        assertEquals(0, OutboxDb.count(db, "SELECT COUNT(*) FROM events e WHERE (SELECT COUNT(*) FROM event_queue q"
            + " WHERE q.type = 'EventStored' AND q.stored_seq = e.seq) <> 1"));
        long stored = OutboxDb.count(db, "SELECT COUNT(*) FROM events");
        assertTrue(stored >= acknowledged.size());
        // Every row is eventually delivered (crashed claims come back after the lease).
        OutboxDb.await("every outbox row delivered", 90,
            () -> OutboxDb.count(db, "SELECT COUNT(*) FROM event_queue WHERE status <> 'done'") == 0);
        assertEquals(stored, OutboxDb.count(db, "SELECT COUNT(*) FROM processed_events WHERE handler = 'forward'"
            + " AND status = 'done'"), "one forward ledger row per event");
        if (!TestDialect.mysql()) { // OutboxDb.NO_MYSQL_SEARCH
          OutboxDb.await("the search handler applied every row", 30, () -> OutboxDb.searchCaughtUp(db));
          assertEquals(stored, OutboxDb.count(OutboxDb.searchDb(db), "SELECT COUNT(*) FROM search_fts_docsize"),
              "every stored event indexed once");
        }
        // Effects: every stored event forwarded; a second run only across the crash (the documented
        // crash-after-effect window), never twice within one process lifetime.
        List<String> crossCrash = new ArrayList<>();
        for (String id : OutboxDb.strings(db, "SELECT lower(hex(id)) FROM events")) {
          int n = upstream.count(id);
          assertTrue(n >= 1, "never forwarded: " + id);
          if (n > 1) {
            long[] t = upstream.times.get(id);
            assertEquals(2, n, "forwarded " + n + " times: " + id);
            assertTrue(t[0] <= killedAt && t[1] > killedAt, "ran twice in one lifetime: " + id);
            crossCrash.add(id);
          }
        }
        System.out.println("crash test: " + acknowledged.size() + " OK'd, " + stored + " stored, "
            + crossCrash.size() + " forwarded again after the crash (effect done, ledger mark lost)");
      } finally {
        server.destroy();
        server.waitFor(30, TimeUnit.SECONDS);
      }
    } finally {
      TestRelayDirs.delete(data);
    }
  }
}
