package dev.cairn.scaleout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.json.JsonArray;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * docs/scale-out.md's "MySQL down" row, on a real pod behind a proxy that can cut MySQL off: while it is
 * down an EVENT is answered {@code OK false "error: ..."}, a REQ {@code CLOSED "error: ..."} and
 * {@code /readyz} 503; when it is back the pod is ready again without a restart, new writes are stored, and
 * every event OK'd before the outage is still there.
 */
class MysqlDownIT {
  @Test
  void whileMysqlIsDownWritesAndReadsFailClearlyAndNothingOkdIsLost() throws Exception {
    try (Cluster cluster = new Cluster();
        MysqlCountingProxy proxy = MysqlCountingProxy.start(cluster.vertx, "127.0.0.1", 3306)) {
      String user = cluster.server.substring("mysql://".length(), cluster.server.indexOf('@'));
      Pod pod = cluster.start("pod-down", Map.of(
          "CAIRN_STORE_URL", "mysql://" + user + "@127.0.0.1:" + proxy.port() + "/" + cluster.metaDb));
      LinkedBlockingQueue<JsonArray> frames = new LinkedBlockingQueue<>();
      // Held for the socket's life: Vert.x 5 closes a client's sockets once the client is unreachable.
      WebSocketClient client = cluster.vertx.createWebSocketClient();
      WebSocket ws = client.connect(pod.port, "127.0.0.1", "/")
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      ws.textMessageHandler(t -> frames.add(new JsonArray(t)));
      EventSigner signer = EventSigner.random();

      NostrEvent before = signer.sign(System.currentTimeMillis() / 1000, 1, List.of(), "before the outage");
      assertTrue(publish(ws, frames, before).getBoolean(2), "stored while MySQL is up");

      proxy.cut();
      awaitReady(pod, 503, Duration.ofSeconds(30));
      JsonArray ok = publish(ws, frames, signer.sign(System.currentTimeMillis() / 1000, 1, List.of(), "during"));
      assertFalse(ok.getBoolean(2), "not OK'd while MySQL is down: " + ok);
      assertTrue(ok.getString(3).startsWith("error:"), ok.encode());
      ws.writeTextMessage("[\"REQ\",\"down\",{\"kinds\":[1]}]");
      JsonArray closed = await(frames, "CLOSED");
      assertTrue(closed.getString(2).startsWith("error:"), closed.encode());

      proxy.restore();
      // Ready again soon with no write needed (a pod out of its load balancer gets none): the engine tries
      // the failed tenant again every 2 s. It waited for the next NIP-40 sweep before, up to a minute.
      awaitReady(pod, 200, Duration.ofSeconds(20));
      NostrEvent after = signer.sign(System.currentTimeMillis() / 1000, 1, List.of(), "after the outage");
      assertTrue(publish(ws, frames, after).getBoolean(2), "stored again once MySQL is back");
      ws.writeTextMessage("[\"REQ\",\"up\",{\"authors\":[\"" + signer.pubkey() + "\"]}]");
      java.util.Set<String> ids = new java.util.HashSet<>();
      for (JsonArray f = await(frames, "EVENT", "EOSE"); f.getString(0).equals("EVENT"); f = await(frames, "EVENT", "EOSE")) {
        ids.add(f.getJsonObject(2).getString("id"));
      }
      assertEquals(java.util.Set.of(before.id(), after.id()), ids, "every OK'd event, nothing else");
      client.close();
    }
  }

  private static JsonArray publish(WebSocket ws, LinkedBlockingQueue<JsonArray> frames, NostrEvent e)
      throws InterruptedException {
    ws.writeTextMessage("[\"EVENT\"," + new String(e.json(), StandardCharsets.UTF_8) + "]");
    return await(frames, "OK");
  }

  private static JsonArray await(LinkedBlockingQueue<JsonArray> frames, String... types) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      JsonArray f = frames.poll(100, TimeUnit.MILLISECONDS);
      if (f != null && List.of(types).contains(f.getString(0))) {
        return f;
      }
    }
    throw new AssertionError("no " + List.of(types) + " within 60 s");
  }

  private static void awaitReady(Pod pod, int status, Duration within) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + within.toNanos();
    int last = -1;
    while (System.nanoTime() < deadline) {
      last = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + pod.port + "/readyz")).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
      if (last == status) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("/readyz stayed " + last + ", expected " + status + " within " + within);
  }
}
