package dev.cairn.bench.load;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.ServerWebSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A relay inside the load tool's own process, for warming the tool's JIT before it measures a real one:
 * REQ is answered with the canned events it was given (none by default) and EOSE, and the subscription
 * kept until its CLOSE; EVENT with OK true and a live delivery to every subscription. No storage, no
 * filter, no signature check: the tool's own code paths (WebSocket frames in and out, its frame reading
 * and bookkeeping) are what runs hot.
 *
 * <p>Why: a fresh load-tool JVM runs its first thousands of deliveries interpreted. At 50 events/s to
 * 200 subscribers that was the first ~100 ms of a level, and a packet capture on loopback showed the
 * tool adding 30-55 ms to the deliveries the relay had put on the wire within 5-19 ms (docs/benchmarks.md):
 * the level's p99 measured the tool.
 */
final class LoopbackRelay implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;
  private final List<Sub> subs = new CopyOnWriteArrayList<>();
  private final List<String> history;

  private record Sub(ServerWebSocket ws, String id, String prefix) {}

  LoopbackRelay() throws Exception {
    this(List.of());
  }

  /** {@code history}: event JSON objects, sent to every REQ before its EOSE. */
  LoopbackRelay(List<String> history) throws Exception {
    this.history = List.copyOf(history);
    server = vertx.createHttpServer().webSocketHandler(this::onSocket)
        .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  String url() {
    return "ws://127.0.0.1:" + server.actualPort();
  }

  private void onSocket(ServerWebSocket ws) {
    ws.textMessageHandler(f -> {
      Frames.Head h = Frames.head(f);
      if (h == null) {
        return;
      }
      if ("REQ".equals(h.verb()) && h.second() != null) {
        String prefix = "[\"EVENT\",\"" + h.second() + "\",";
        for (String event : history) {
          ws.writeTextMessage(prefix + event + "]");
        }
        ws.writeTextMessage("[\"EOSE\",\"" + h.second() + "\"]");
        subs.add(new Sub(ws, h.second(), prefix));
      } else if ("CLOSE".equals(h.verb()) && h.second() != null) {
        subs.removeIf(s -> s.ws() == ws && s.id().equals(h.second()));
      } else if ("EVENT".equals(h.verb())) {
        String id = Frames.eventId(f);
        int from = f.indexOf('{');
        int to = f.lastIndexOf('}');
        if (id == null || from < 0 || to < from) {
          ws.writeTextMessage("[\"NOTICE\",\"invalid EVENT\"]");
          return;
        }
        ws.writeTextMessage("[\"OK\",\"" + id + "\",true,\"\"]");
        String event = f.substring(from, to + 1);
        for (Sub s : subs) {
          s.ws().writeTextMessage(s.prefix() + event + "]");
        }
      }
    });
    ws.closeHandler(v -> subs.removeIf(s -> s.ws() == ws));
  }

  /**
   * {@code n} events shaped like the benchmark's (kind 1, tags, content with non-ASCII text), with random
   * ids and signatures: for reading only, nothing verifies them.
   */
  static List<String> cannedEvents(int n) {
    Random random = new Random(n);
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add("{\"id\":\"" + hex(random, 32) + "\",\"pubkey\":\"" + hex(random, 32) + "\",\"created_at\":"
          + (1_796_000_000L + i) + ",\"kind\":1,\"tags\":[[\"t\",\"nostr\"],[\"p\",\"" + hex(random, 32)
          + "\"]],\"content\":\"note " + i + ": caf\u00e9 \ud83c\udf89 \u65e5\u672c\u8a9e " + "lorem ipsum ".repeat(1 + i % 20)
          + "\",\"sig\":\"" + hex(random, 64) + "\"}");
    }
    return out;
  }

  private static String hex(Random random, int bytes) {
    StringBuilder sb = new StringBuilder(bytes * 2);
    for (int i = 0; i < bytes; i++) {
      sb.append(String.format("%02x", random.nextInt(256)));
    }
    return sb.toString();
  }

  @Override
  public void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
