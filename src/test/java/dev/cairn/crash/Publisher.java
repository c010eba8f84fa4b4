package dev.cairn.crash;

import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.Events;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One publishing client: its own key and WebSocket, sending signed events as fast as the relay
 * acknowledges them (a window of {@link #WINDOW} unanswered EVENTs, so a killed relay leaves a known
 * set in flight), and recording every event sent and every {@code OK} received.
 *
 * <p>Every {@link #REPLACEABLE_EVERY}th event is a new version of one replaceable event (kind
 * {@link #REPLACEABLE_KIND}) with a strictly growing {@code created_at}, so the crash also cuts through
 * replacements: their {@code EventDeleted(replaced)} outbox rows and {@code deleted} feed frames.
 */
final class Publisher {
  static final int REPLACEABLE_KIND = 10050;
  static final int REPLACEABLE_EVERY = 10;
  private static final int WINDOW = 16;

  private final EventSigner signer = EventSigner.random();
  /** Held for the socket's life: Vert.x 5 closes a client (and its sockets) once it is unreachable. */
  private final WebSocketClient client;
  private final WebSocket ws;
  private final Semaphore window = new Semaphore(WINDOW);
  private final String label;
  private final long baseSecond;
  private final Map<String, JsonObject> sent = new ConcurrentHashMap<>();
  private final Set<String> accepted = ConcurrentHashMap.newKeySet();
  /** OK true "duplicate: ...": the relay already had it, or (a replaceable version) a newer one. */
  private final Set<String> duplicates = ConcurrentHashMap.newKeySet();
  /** id -> OK false message. */
  private final Map<String, String> refused = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile boolean stopping;

  private Publisher(WebSocketClient client, WebSocket ws, String label, long baseSecond) {
    this.client = client;
    this.ws = ws;
    this.label = label;
    this.baseSecond = baseSecond;
    ws.textMessageHandler(this::onText);
    ws.closeHandler(v -> window.release(WINDOW)); // wake the sender: nothing more will be answered
    this.thread = new Thread(this::run, "crash-" + label);
  }

  static Publisher connect(Vertx vertx, int port, String label) throws Exception {
    WebSocketClient client = vertx.createWebSocketClient();
    WebSocket ws = client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/"))
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return new Publisher(client, ws, label, Events.now());
  }

  void start() {
    thread.start();
  }

  private void onText(String text) {
    JsonArray a = new JsonArray(text);
    if (!"OK".equals(a.getString(0))) {
      return;
    }
    if (a.getBoolean(2)) {
      accepted.add(a.getString(1));
      if (a.size() > 3 && a.getString(3).startsWith("duplicate:")) {
        duplicates.add(a.getString(1));
      }
    } else {
      refused.put(a.getString(1), a.size() > 3 ? a.getString(3) : "");
    }
    window.release();
  }

  private void run() {
    int replaceableVersion = 0;
    for (int i = 0; !stopping && !ws.isClosed(); i++) {
      try {
        if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          continue;
        }
      } catch (InterruptedException e) {
        return;
      }
      JsonObject event = i % REPLACEABLE_EVERY == REPLACEABLE_EVERY - 1
          // one version a second ahead of the last: the newest is always the last one sent
          ? Events.signed(signer, REPLACEABLE_KIND, baseSecond + ++replaceableVersion, List.of(),
              "crash " + label + " version " + replaceableVersion)
          : Events.note(signer, "crash " + label + " note " + i, List.of());
      sent.put(event.getString("id"), event);
      ws.writeTextMessage(new JsonArray().add("EVENT").add(event).encode());
    }
  }

  /** Stops sending (the relay is dead or the round is over) and waits for the sender thread. */
  void stop() throws InterruptedException {
    stopping = true;
    thread.join(10_000);
  }

  String pubkey() {
    return signer.pubkey();
  }

  Map<String, JsonObject> sent() {
    return Map.copyOf(sent);
  }

  Set<String> accepted() {
    return Set.copyOf(accepted);
  }

  Set<String> duplicates() {
    return Set.copyOf(duplicates);
  }

  Map<String, String> refused() {
    return Map.copyOf(refused);
  }
}
