package dev.cairn.crash;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The observable side effect: an upstream relay for the {@code forward} handler that records every
 * EVENT it receives, per event id and per relay lifetime. It answers like an idempotent Nostr relay
 * ({@code OK true}, then {@code duplicate:} for a repeat), so {@link #effects()} is what a real
 * upstream would hold, and {@link #deliveries(String, int)} shows any handler run that was repeated.
 *
 * <p>A receipt's lifetime is the one current when its connection was accepted: the killed relay's
 * sockets were all opened before the harness moved to the next lifetime, so a frame that was still in
 * flight when the kill was observed is still counted against the process that sent it.
 */
final class UpstreamRecorder implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;
  private final AtomicInteger lifetime = new AtomicInteger(1);
  /** event id -> lifetime -> receipts. */
  private final Map<String, Map<Integer, AtomicInteger>> receipts = new ConcurrentHashMap<>();
  private final Set<String> effects = ConcurrentHashMap.newKeySet();

  UpstreamRecorder() throws Exception {
    server = vertx.createHttpServer().webSocketHandler(ws -> {
      int connectionLifetime = lifetime.get();
      ws.textMessageHandler(text -> {
        JsonArray a = new JsonArray(text);
        if (!"EVENT".equals(a.getString(0))) {
          return;
        }
        String id = a.getJsonObject(1).getString("id");
        receipts.computeIfAbsent(id, k -> new ConcurrentHashMap<>())
            .computeIfAbsent(connectionLifetime, k -> new AtomicInteger()).incrementAndGet();
        boolean first = effects.add(id);
        ws.writeTextMessage(new JsonArray().add("OK").add(id).add(true)
            .add(first ? "" : "duplicate: already have this event").encode());
      });
    }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  String url() {
    return "ws://127.0.0.1:" + server.actualPort();
  }

  /** Call once the previous relay process is dead and before the next one starts. */
  void nextLifetime() {
    lifetime.incrementAndGet();
  }

  /** Ids whose effect was applied (first receipt), each once. */
  Set<String> effects() {
    return Set.copyOf(effects);
  }

  int deliveries(String id, int inLifetime) {
    Map<Integer, AtomicInteger> m = receipts.get(id);
    AtomicInteger n = m == null ? null : m.get(inLifetime);
    return n == null ? 0 : n.get();
  }

  int deliveries(String id) {
    Map<Integer, AtomicInteger> m = receipts.get(id);
    return m == null ? 0 : m.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  @Override
  public void close() {
    vertx.close();
  }
}
