package dev.cairn.feed;

import dev.cairn.feed.SseClient.Frame;
import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.Events;
import dev.cairn.relay.RelayClient;
import dev.cairn.relay.TestRelay;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The load tool for the closing note (not part of the suite): SSE replay throughput for one stream
 * and for 100 streams, and live latency write -> SSE frame next to write -> REQ EVENT over WebSocket.
 * Run: {@code mvn -o -q test -Dtest=FeedLoadTest -Dfeed.load=true}; figures in
 * {@code target/surefire-reports/dev.cairn.feed.FeedLoadTest-output.txt}.
 */
@EnabledIfSystemProperty(named = "feed.load", matches = "true")
class FeedLoadTest {
  private static final int BACKLOG = Integer.getInteger("feed.load.backlog", 20_000);
  private static final int LIVE = Integer.getInteger("feed.load.live", 2_000);

  private static int readAll(String url, int n) throws Exception {
    int got = 0;
    try (SseClient c = SseClient.open(url)) {
      while (got < n) {
        if (c.next().event().equals("stored")) {
          got++;
        }
      }
    }
    return got;
  }

  @Test
  void measure() throws Exception {
    JsonObject config = new JsonObject().put("tenants", new JsonArray().add(new JsonObject().put("id", "load"))
        .add(new JsonObject().put("id", "live")));
    try (TestRelay relay = TestRelay.start(config, Map.of())) {
      EventSigner signer = EventSigner.random();
      try (RelayClient ws = relay.connect("/t/load")) {
        FeedSupport.publishAll(ws, FeedSupport.notes(signer, BACKLOG, "load"));
      }
      String url = relay.httpUrl() + "/t/load/v1/events?since=0";
      readAll(url, BACKLOG); // warm-up, and the last feed row has landed
      long t0 = System.nanoTime();
      readAll(url, BACKLOG);
      double one = BACKLOG / ((System.nanoTime() - t0) / 1e9);
      System.out.printf("replay, 1 stream: %d events in %.2f s = %.0f events/s%n", BACKLOG,
          (System.nanoTime() - t0) / 1e9, one);

      ExecutorService pool = Executors.newFixedThreadPool(100);
      t0 = System.nanoTime();
      List<Future<Integer>> all = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        all.add(pool.submit(() -> readAll(url, BACKLOG)));
      }
      long total = 0;
      for (Future<Integer> f : all) {
        total += f.get();
      }
      double secs = (System.nanoTime() - t0) / 1e9;
      pool.shutdown();
      System.out.printf("replay, 100 streams: %d events in %.2f s = %.0f events/s aggregate, %.0f per stream%n",
          total, secs, total / secs, total / secs / 100);

      // Live latency: one write at a time; an SSE stream and a REQ see it.
      Map<String, Long> sseAt = new ConcurrentHashMap<>();
      try (SseClient sse = SseClient.open(relay.httpUrl() + "/t/live/v1/events");
          RelayClient pub = relay.connect("/t/live"); RelayClient sub = relay.connect("/t/live")) {
        sse.next();
        sse.next();
        Thread reader = new Thread(() -> {
          try {
            while (true) {
              Frame f = sse.next();
              if (f.event().equals("stored")) {
                sseAt.put(f.data().getJsonObject("event").getString("id"), System.nanoTime());
              }
            }
          } catch (Throwable ignored) {
            // closed
          }
        });
        reader.setDaemon(true);
        reader.start();
        sub.req("live", new JsonObject().put("kinds", new JsonArray().add(1)).put("since", Events.now()));
        sub.awaitType("EOSE");
        long[] wsLat = new long[LIVE];
        long[] sseLat = new long[LIVE];
        for (int i = 0; i < LIVE; i++) {
          JsonObject e = Events.note(signer, "live " + i, List.of());
          String id = e.getString("id");
          long start = System.nanoTime();
          pub.publish(e);
          sub.await(f -> f.getString(0).equals("EVENT") && f.getJsonObject(2).getString("id").equals(id));
          wsLat[i] = System.nanoTime() - start;
          while (!sseAt.containsKey(id)) {
            Thread.onSpinWait();
          }
          sseLat[i] = sseAt.get(id) - start;
        }
        System.out.printf("live latency over %d writes (one at a time): REQ/WebSocket median %.2f ms p99 %.2f ms;"
            + " SSE median %.2f ms p99 %.2f ms%n", LIVE, pct(wsLat, 50), pct(wsLat, 99), pct(sseLat, 50), pct(sseLat, 99));
      }
    }
  }

  private static double pct(long[] nanos, int p) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    return s[Math.min(s.length - 1, (int) Math.ceil(p / 100.0 * s.length) - 1)] / 1e6;
  }
}
