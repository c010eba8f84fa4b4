package dev.cairn.outbox;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An upstream relay for the forward handler: counts every EVENT it receives per event id (the effect
 * the test counts) and answers OK true, "duplicate:" for a repeat, or OK false when refusing.
 */
final class FakeUpstream implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;
  final Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
  /** Receipt times (ms) per id, first and last. */
  final Map<String, long[]> times = new ConcurrentHashMap<>();
  private final boolean refuse;

  FakeUpstream(boolean refuse) throws Exception {
    this.refuse = refuse;
    server = vertx.createHttpServer().webSocketHandler(ws -> ws.textMessageHandler(text -> {
      JsonArray a = new JsonArray(text);
      if (!"EVENT".equals(a.getString(0))) {
        return;
      }
      JsonObject ev = a.getJsonObject(1);
      String id = ev.getString("id");
      long now = System.currentTimeMillis();
      int n = received.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
      times.compute(id, (k, v) -> v == null ? new long[] {now, now} : new long[] {v[0], now});
      if (refuse) {
        ws.writeTextMessage(new JsonArray().add("OK").add(id).add(false).add("blocked: not welcome here").encode());
      } else {
        ws.writeTextMessage(new JsonArray().add("OK").add(id).add(true)
            .add(n > 1 ? "duplicate: already have this event" : "").encode());
      }
    })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  String url() {
    return "ws://127.0.0.1:" + server.actualPort();
  }

  int count(String id) {
    AtomicInteger n = received.get(id);
    return n == null ? 0 : n.get();
  }

  @Override
  public void close() {
    vertx.close();
  }
}
