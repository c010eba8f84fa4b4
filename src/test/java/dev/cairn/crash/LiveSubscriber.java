package dev.cairn.crash;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A REQ subscriber open across the load: records every event id the relay pushed to it. Whatever it
 * saw before the kill must survive the restart (live dispatch happens only after the commit), so a
 * phantom here is an event delivered before it was durable.
 */
final class LiveSubscriber {
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final CountDownLatch eose = new CountDownLatch(1);
  /** Held for the socket's life: Vert.x 5 closes a client (and its sockets) once it is unreachable. */
  private final WebSocketClient client;

  private LiveSubscriber(WebSocketClient client) {
    this.client = client;
  }

  /** Opens the subscription (every kind the publishers send, from now) and waits for its EOSE. */
  static LiveSubscriber open(Vertx vertx, int port) throws Exception {
    LiveSubscriber s = new LiveSubscriber(vertx.createWebSocketClient());
    WebSocket ws = s.client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/"))
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    ws.textMessageHandler(s::onText);
    ws.writeTextMessage(new JsonArray().add("REQ").add("live")
        .add(new JsonObject().put("kinds", new JsonArray().add(1).add(Publisher.REPLACEABLE_KIND)).put("limit", 0))
        .encode());
    if (!s.eose.await(10, TimeUnit.SECONDS)) {
      throw new AssertionError("no EOSE for the live subscription");
    }
    return s;
  }

  private void onText(String text) {
    JsonArray a = new JsonArray(text);
    if ("EVENT".equals(a.getString(0))) {
      seen.add(a.getJsonObject(2).getString("id"));
    } else if ("EOSE".equals(a.getString(0))) {
      eose.countDown();
    }
  }

  Set<String> seen() {
    return Set.copyOf(seen);
  }
}
