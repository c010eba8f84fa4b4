package dev.cairn.scaleout;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Writes kind-1 notes of one key alternately on several pods (event i on pod i mod n), a window of
 * unanswered EVENTs per pod, and records which were accepted ({@code OK true}). A pod that dies stops
 * being written to; the others go on.
 */
final class AlternatingWriter {
  private static final int WINDOW = 16;

  private final EventSigner signer = EventSigner.random();
  private final List<WebSocketClient> clients = new ArrayList<>();
  private final List<WebSocket> sockets = new ArrayList<>();
  private final List<Semaphore> windows = new ArrayList<>();
  private final Set<String> accepted = ConcurrentHashMap.newKeySet();
  private final Set<String> refused = ConcurrentHashMap.newKeySet();

  AlternatingWriter(Vertx vertx, List<Pod> pods) throws Exception {
    for (Pod p : pods) {
      WebSocketClient c = vertx.createWebSocketClient();
      WebSocket ws = c.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(p.port).setURI("/"))
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      Semaphore window = new Semaphore(WINDOW);
      ws.textMessageHandler(t -> {
        JsonArray a = new JsonArray(t);
        if ("OK".equals(a.getString(0))) {
          (a.getBoolean(2) ? accepted : refused).add(a.getString(1));
          window.release();
        }
      });
      ws.closeHandler(v -> window.release(1_000_000)); // a dead pod answers nothing more
      clients.add(c);
      sockets.add(ws);
      windows.add(window);
    }
  }

  String pubkey() {
    return signer.pubkey();
  }

  /** Sends events {@code from} (inclusive) to {@code to} (exclusive); returns once each got its turn. */
  void write(int from, int to) throws InterruptedException {
    long base = System.currentTimeMillis() / 1000;
    for (int i = from; i < to; i++) {
      int k = i % sockets.size();
      for (int tries = 0; sockets.get(k).isClosed() && tries < sockets.size(); tries++) {
        k = (k + 1) % sockets.size();
      }
      WebSocket ws = sockets.get(k);
      if (ws.isClosed()) {
        throw new AssertionError("every pod's socket is closed");
      }
      if (!windows.get(k).tryAcquire(30, TimeUnit.SECONDS)) {
        throw new AssertionError("pod " + k + " answered nothing for 30 s");
      }
      NostrEvent e = signer.sign(base, 1, List.of(), "scale-out " + i);
      ws.writeTextMessage("[\"EVENT\"," + new String(e.json(), StandardCharsets.UTF_8) + "]");
    }
  }

  /** Waits until every EVENT sent to a live pod was answered. */
  void drain() throws InterruptedException {
    for (int k = 0; k < sockets.size(); k++) {
      if (!sockets.get(k).isClosed() && !windows.get(k).tryAcquire(WINDOW, 60, TimeUnit.SECONDS)) {
        throw new AssertionError("pod " + k + " left EVENTs unanswered for 60 s");
      }
      windows.get(k).release(WINDOW);
    }
  }

  Set<String> accepted() {
    return Set.copyOf(accepted);
  }

  Set<String> refused() {
    return Set.copyOf(refused);
  }
}
