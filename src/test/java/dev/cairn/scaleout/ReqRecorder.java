package dev.cairn.scaleout;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A REQ subscriber that records every EVENT it is sent, in arrival order, and where its stored events
 * (before EOSE) end and live ones begin.
 */
final class ReqRecorder {
  private final WebSocketClient client;
  private final List<String> ids = new ArrayList<>();
  private final CountDownLatch eose = new CountDownLatch(1);
  private volatile int storedCount = -1;
  private volatile String closed;

  private ReqRecorder(WebSocketClient client) {
    this.client = client;
  }

  /** Opens {@code filter} on the pod and waits for EOSE. */
  static ReqRecorder open(Vertx vertx, Pod pod, JsonObject filter) throws Exception {
    ReqRecorder r = new ReqRecorder(vertx.createWebSocketClient());
    WebSocket ws = r.client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(pod.port).setURI("/"))
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    ws.textMessageHandler(r::onText);
    ws.writeTextMessage(new JsonArray().add("REQ").add("s").add(filter).encode());
    if (!r.eose.await(30, TimeUnit.SECONDS)) {
      throw new AssertionError("no EOSE from pod " + pod.id);
    }
    return r;
  }

  private synchronized void onText(String text) {
    JsonArray a = new JsonArray(text);
    switch (a.getString(0)) {
      case "EVENT" -> ids.add(a.getJsonObject(2).getString("id"));
      case "EOSE" -> {
        storedCount = ids.size();
        eose.countDown();
      }
      case "CLOSED" -> closed = a.encode();
      default -> { }
    }
  }

  synchronized List<String> ids() {
    return List.copyOf(ids);
  }

  /** Events sent before EOSE (the stored part). */
  int storedCount() {
    return storedCount;
  }

  String closedWith() {
    return closed;
  }
}
