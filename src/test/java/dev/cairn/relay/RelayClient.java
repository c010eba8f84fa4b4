package dev.cairn.relay;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientWebSocket;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.http.WebSocketFrame;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real WebSocket client for tests, on its own Vert.x instance: sends raw frames and collects every
 * frame the relay sends, in order, for blocking assertions from the test thread.
 */
public final class RelayClient implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(10);

  private final Vertx vertx;
  /**
   * Held for the socket's life: Vert.x 5 closes a client's connections once the client object is
   * unreachable (its Cleaner), and the socket refers to the client's inner part only.
   */
  private final WebSocketClient client;
  private final WebSocket ws;
  private final LinkedBlockingQueue<JsonArray> frames = new LinkedBlockingQueue<>();
  private volatile Short closeCode;
  private volatile String closeReason;

  private RelayClient(Vertx vertx, WebSocketClient client, WebSocket ws) {
    this.client = client;
    this.vertx = vertx;
    this.ws = ws;
    ws.textMessageHandler(t -> frames.add(new JsonArray(t)));
    ws.closeHandler(v -> {
      closeCode = ws.closeStatusCode();
      closeReason = ws.closeReason();
    });
  }

  public static RelayClient connect(int port, String path) throws Exception {
    return connect(port, path, new WebSocketClientOptions());
  }

  /** With client options of the test's own (e.g. {@code wss://}: SSL and the trust). */
  static RelayClient connect(int port, String path, WebSocketClientOptions options) throws Exception {
    Vertx vertx = Vertx.vertx();
    WebSocketClient client = vertx.createWebSocketClient(options
        .setMaxMessageSize(64 * 1024 * 1024).setMaxFrameSize(64 * 1024 * 1024));
    try {
      // The handlers are set before the socket opens, so a relay that speaks first (an AUTH challenge) is
      // heard whatever the timing. Set in a callback of the connect's future, they depended on that callback
      // running before the first frame was dispatched; once, on a loaded CI host, Nip42AuthTest waited 10 s
      // for an AUTH the relay sends at once.
      ClientWebSocket ws = client.webSocket();
      RelayClient relayClient = new RelayClient(vertx, client, ws);
      ws.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI(path))
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      return relayClient;
    } catch (Exception e) {
      vertx.close();
      throw e;
    }
  }

  public void send(String text) {
    ws.writeTextMessage(text);
  }

  public void send(JsonArray message) {
    send(message.encode());
  }

  public void sendFrame(WebSocketFrame frame) {
    ws.writeFrame(frame);
  }

  public void sendBinary(byte[] bytes) {
    ws.writeBinaryMessage(Buffer.buffer(bytes));
  }

  public void publish(JsonObject event) {
    send(new JsonArray().add("EVENT").add(event));
  }

  /** Publishes and waits for the event's OK; returns the OK frame. */
  public JsonArray publishAndWait(JsonObject event) throws InterruptedException {
    publish(event);
    return await(f -> f.getString(0).equals("OK") && f.getString(1).equals(event.getString("id")));
  }

  public void req(String subId, JsonObject... filters) {
    JsonArray a = new JsonArray().add("REQ").add(subId);
    for (JsonObject f : filters) {
      a.add(f);
    }
    send(a);
  }

  /** Sends a REQ and returns the events up to EOSE (the EOSE frame is consumed). */
  public List<JsonObject> query(String subId, JsonObject... filters) throws InterruptedException {
    req(subId, filters);
    List<JsonObject> events = new ArrayList<>();
    while (true) {
      JsonArray f = await(x -> subId.equals(x.getValue(1))
          && (x.getString(0).equals("EVENT") || x.getString(0).equals("EOSE") || x.getString(0).equals("CLOSED")));
      if (f.getString(0).equals("EVENT")) {
        events.add(f.getJsonObject(2));
      } else if (f.getString(0).equals("EOSE")) {
        return events;
      } else {
        throw new AssertionError("subscription closed: " + f.encode());
      }
    }
  }

  /** The next frame matching {@code p}; frames before it that do not match are dropped. */
  public JsonArray await(Predicate<JsonArray> p) throws InterruptedException {
    return await(p, WAIT);
  }

  public JsonArray await(Predicate<JsonArray> p, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      JsonArray f = left <= 0 ? null : frames.poll(Math.min(left, 100_000_000L), TimeUnit.NANOSECONDS);
      if (f == null && left > 0 && !isClosed()) {
        continue;
      }
      if (f == null) {
        throw new AssertionError(isClosed() ? "connection closed (" + closeCode + " " + closeReason + ") before a"
            + " matching frame" : "no matching frame within " + timeout);
      }
      if (p.test(f)) {
        return f;
      }
    }
  }

  public JsonArray awaitType(String type) throws InterruptedException {
    return await(f -> f.getString(0).equals(type));
  }

  /** The next frame, or null when none comes within {@code timeout}. */
  public JsonArray poll(Duration timeout) throws InterruptedException {
    return frames.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Waits until the relay closed the connection; returns its close code. */
  public short awaitClose() throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (closeCode == null && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    if (closeCode == null) {
      throw new AssertionError("connection was not closed");
    }
    return closeCode;
  }

  public String closeReason() {
    return closeReason;
  }

  public boolean isClosed() {
    return closeCode != null || ws.isClosed();
  }

  @Override
  /**
   * Closes the WebSocket (a close frame, waited for at most 2 s), then this client's Vert.x. Closing the
   * Vert.x alone closes the socket in the background, and once in a CI run the relay still counted the
   * connection 20 s later (StatusPageTest).
   */
  public void close() {
    if (!ws.isClosed()) {
      try {
        ws.close().toCompletionStage().toCompletableFuture().get(2, TimeUnit.SECONDS);
      } catch (Exception e) {
        // closed by the relay meanwhile, or slow: Vert.x's close below cuts it anyway
      }
    }
    vertx.close();
  }
}
