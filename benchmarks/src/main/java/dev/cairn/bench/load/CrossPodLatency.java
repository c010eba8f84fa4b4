package dev.cairn.bench.load;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * scale-out: the delay from an EVENT sent to pod A to its arrival at pod B, through each cross-pod path:
 * a REQ subscriber on B (live fan-out over NATS) and an SSE consumer on B (the meta DB signal plane: a
 * notify row, B's 200 ms poller, a feed read). Open loop at a fixed rate; one process, one clock.
 *
 * <pre>
 * CrossPodLatency --writer ws://127.0.0.1:A --reader 127.0.0.1:B [--rate 50] [--duration 30] [--drain 10]
 * </pre>
 */
public final class CrossPodLatency {
  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    String writer = args.required("writer");
    String reader = args.required("reader");
    int rate = args.integer("rate", 50);
    int duration = args.integer("duration", 30);
    int drain = args.integer("drain", 10);
    Vertx vertx = Vertx.vertx();
    EventSigner signer = EventSigner.random();
    Map<String, Long> sentAt = new ConcurrentHashMap<>();
    Latencies req = new Latencies();
    Latencies sse = new Latencies();
    Latencies ok = new Latencies();
    AtomicLong reqSeen = new AtomicLong();
    AtomicLong sseSeen = new AtomicLong();

    WebSocketClient client = vertx.createWebSocketClient();
    URI b = URI.create("ws://" + reader);
    WebSocket sub = client.connect(new WebSocketConnectOptions().setHost(b.getHost()).setPort(b.getPort()).setURI("/"))
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    sub.textMessageHandler(t -> {
      long now = System.nanoTime();
      JsonArray a = new JsonArray(t);
      if ("EVENT".equals(a.getString(0))) {
        Long at = sentAt.get(a.getJsonObject(2).getString("id"));
        if (at != null) {
          req.recordNanos(now - at);
          reqSeen.incrementAndGet();
        }
      }
    });
    sub.writeTextMessage(new JsonArray().add("REQ").add("lat")
        .add(new JsonObject().put("authors", new JsonArray().add(signer.pubkey())).put("limit", 0)).encode());

    Thread sseReader = new Thread(() -> {
      try {
        HttpResponse<java.io.InputStream> r = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create("http://" + reader + "/v1/events")).build(),
            HttpResponse.BodyHandlers.ofInputStream());
        BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
          long now = System.nanoTime();
          int i = line.indexOf("\"id\":\"");
          if (line.startsWith("data:") && line.contains("\"event\":{") && i > 0) {
            int at = line.indexOf("\"event\":{");
            int id = line.indexOf("\"id\":\"", at);
            Long sent = sentAt.get(line.substring(id + 6, id + 70));
            if (sent != null) {
              sse.recordNanos(now - sent);
              sseSeen.incrementAndGet();
            }
          }
        }
      } catch (Exception e) {
        // stream ended
      }
    }, "sse");
    sseReader.setDaemon(true);
    sseReader.start();
    Thread.sleep(1_000); // the REQ's EOSE and the SSE stream's first heartbeat

    URI a = URI.create(writer);
    WebSocket pub = client.connect(new WebSocketConnectOptions().setHost(a.getHost()).setPort(a.getPort()).setURI("/"))
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    pub.textMessageHandler(t -> {
      long now = System.nanoTime();
      JsonArray m = new JsonArray(t);
      Long at = "OK".equals(m.getString(0)) ? sentAt.get(m.getString(1)) : null;
      if (at != null) {
        ok.recordNanos(now - at);
      }
    });
    long total = (long) rate * duration;
    long start = System.nanoTime();
    for (long n = 0; n < total; n++) {
      long due = start + n * 1_000_000_000L / rate;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
      NostrEvent e = signer.sign(System.currentTimeMillis() / 1000, 1, List.of(), "latency " + n);
      sentAt.put(e.id(), System.nanoTime());
      pub.writeTextMessage("[\"EVENT\"," + new String(e.json(), StandardCharsets.UTF_8) + "]");
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(drain);
    while ((reqSeen.get() < total || sseSeen.get() < total) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    System.out.printf("cross-pod latency, %d events at %d/s written on pod A (%s), read on pod B (%s):%n",
        total, rate, writer, reader);
    System.out.println("  EVENT->OK on pod A (the commit): " + ok.snapshot().describe());
    System.out.println("  REQ (live fan-out over NATS): " + req.snapshot().describe() + ", received "
        + reqSeen.get() + " of " + total);
    System.out.println("  SSE (signal plane + feed read): " + sse.snapshot().describe() + ", received "
        + sseSeen.get() + " of " + total);
    client.close(); // held until here: Vert.x 5 closes an unreachable client's sockets
    vertx.close();
    System.exit(reqSeen.get() == total && sseSeen.get() == total ? 0 : 1);
  }
}
