package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CompletableFuture;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Clients that stop reading, or send what no limit allows, are cut off for real (the TCP connection
 * is gone, not just a close frame queued behind megabytes), and the other clients do not notice.
 */
class HostileClientsTest {
  private static final EventSigner AUTHOR = EventSigner.random();
  private static final String BIG = "x".repeat(13_000);

  private static JsonObject limits(String slowTimeout, long maxOutbound) {
    return new JsonObject().put("limits", new JsonObject()
        .put("slow_consumer_timeout", slowTimeout).put("max_outbound_bytes", maxOutbound)
        .put("max_message_length", 65536));
  }

  @Test
  void aPausedWebSocketReaderIsCutOffAtTheTimeoutAndNobodyElseWaits() throws Exception {
    try (TestRelay relay = TestRelay.start(limits("2s", 64L << 20), Map.of());
        RawSocket paused = RawSocket.webSocket(relay.port(), "/");
        RelayClient reader = relay.connect();
        RelayClient pub = relay.connect()) {
      paused.sendText("[\"REQ\",\"s\",{\"kinds\":[1]}]");
      reader.req("s", new JsonObject().put("kinds", new JsonArray().add(1)));
      reader.awaitType("EOSE");
      long start = System.currentTimeMillis();
      Set<String> sent = publishBig(pub, 300);
      Set<String> got = new HashSet<>();
      while (got.size() < sent.size()) {
        got.add(reader.await(f -> f.getString(0).equals("EVENT")).getJsonObject(2).getString("id"));
      }
      assertEquals(sent, got, "a reading subscriber gets every event while another one stalls");
      awaitCounter(relay, "ws", 15_000);
      Thread.sleep(3_500); // the close frame's grace (3 s without reading), then the TCP connection must be gone
      long bytes = paused.readToEof(10_000);
      assertTrue(bytes >= 0, "the paused reader's TCP connection is closed");
      assertTrue(System.currentTimeMillis() - start < 2_000 + 10_000 + 5_000, "within the timeout and 10 s");
      // ~4 MB were published for it; most of it sat in the server's kernel send buffer. A close that
      // only queues a close frame behind that (the socket stays ESTABLISHED) lets a reader that
      // resumes drain it all; a real cut (reset) leaves it at most its own small receive buffer.
      assertTrue(bytes < 1L << 20, "its queue was dropped, not sent, also the kernel's (" + bytes + " bytes read)");
    }
  }

  @Test
  void anOutboundQueueOverItsByteBoundIsCutOffBeforeTheTimeout() throws Exception {
    try (TestRelay relay = TestRelay.start(limits("60s", 1L << 20), Map.of());
        RawSocket paused = RawSocket.webSocket(relay.port(), "/");
        RelayClient pub = relay.connect()) {
      paused.sendText("[\"REQ\",\"s\",{\"kinds\":[1]}]");
      Thread.sleep(300);
      // ~8 MB for a reader whose bound is 1 MiB: the kernel's send buffer alone may take 4 MB (tcp_wmem)
      publishBig(pub, 600);
      awaitCounter(relay, "ws", 10_000);
      assertTrue(paused.readToEof(10_000) >= 0, "closed long before the 60 s timeout");
    }
  }

  @Test
  void aSlowButReadingClientClosedForItsQueueGetsTheCloseFrameWithTheReason() throws Exception {
    try (TestRelay relay = TestRelay.start(limits("60s", 1L << 20), Map.of());
        RawSocket slow = RawSocket.webSocket(relay.port(), "/");
        RelayClient pub = relay.connect()) {
      slow.sendText("[\"REQ\",\"s\",{\"kinds\":[1]}]");
      Thread.sleep(300);
      CompletableFuture<byte[]> tail = CompletableFuture.supplyAsync(() -> {
        try {
          return slow.readSlowlyToEof(5, 30_000); // < 1 MB/s, slower than the ~8 MB published at once
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      // ~8 MB: more than the client reads while a loaded machine publishes, plus both kernels' buffers
      // (with ~4 MB, CI once saw them absorb it all and the relay's queue never pass 1 MB)
      publishBig(pub, 600);
      awaitCounter(relay, "ws", 10_000);
      byte[] end = tail.get(40, TimeUnit.SECONDS);
      assertTrue(end != null, "the connection was closed (FIN) after the frames the client still had to read");
      String text = new String(end, StandardCharsets.ISO_8859_1);
      int reason = text.lastIndexOf("slow consumer: more than 1048576 bytes waiting to be read");
      // a close frame: 0x88, its length, then the code 1008 (0x03F0) right before the reason; a reset
      // would have dropped it with the kernel's copy of the frames before it
      assertTrue(reason >= 4 && end[reason - 4] == (byte) 0x88 && end[reason - 2] == 0x03 && end[reason - 1] == (byte) 0xF0,
          "the last frame is the close frame 1008 with its reason: " + text.substring(Math.max(0, text.length() - 120)));
    }
  }

  @Test
  void aClientThatReadsNoneOfItsAnswersIsClosedOverTheListenersAnswerBudget() throws Exception {
    JsonObject config = limits("60s", 64L << 20);
    config.getJsonObject("limits").put("max_queued_answer_bytes", 4L << 20);
    try (TestRelay relay = TestRelay.start(config, Map.of()); RelayClient pub = relay.connect()) {
      publishBig(pub, 300); // ~4 MB in each REQ's answer
      try (RawSocket hog = RawSocket.webSocket(relay.port(), "/"); RelayClient reader = relay.connect()) {
        for (int i = 0; i < 8; i++) {
          hog.sendText("[\"REQ\",\"h" + i + "\",{\"kinds\":[1]}]");
        }
        for (int i = 0; i < 3; i++) {
          reader.req("r" + i, new JsonObject().put("kinds", new JsonArray().add(1)));
        }
        // over the 4 MiB budget too while it reads, but it reads: it gets every answer in full
        Map<String, Integer> events = new java.util.HashMap<>();
        for (int eose = 0; eose < 3; ) {
          JsonArray f = reader.await(x -> true);
          if ("EOSE".equals(f.getString(0))) {
            eose++;
            assertEquals(300, events.get(f.getString(1)), "every event before the EOSE of " + f.getString(1));
          } else {
            events.merge(f.getString(1), 1, Integer::sum);
          }
        }
        // the one that reads nothing is closed a second or so after its socket filled, not at the 60 s timeout
        awaitCounter(relay, "ws", 10_000);
        assertTrue(hog.readToEof(10_000) >= 0, "the client that read nothing was cut off");
        assertTrue(!reader.isClosed(), "the client that reads is not closed for the budget");
        assertEquals(1.0, slowConsumersClosed(relay, "ws"), "only the client that read nothing was closed");
      }
    }
  }

  @Test
  void floodsOfCountsFromClientsThatReadNothingDoNotHoldTheOtherClients() throws Exception {
    JsonObject config = limits("60s", 64L << 20);
    // one conn-worker for every connection, whose inbox a few held credits fill: one query on its way per
    // connection, one COUNT waiting freely, each further one holding its frame's credit
    config.put("tree", new JsonObject().put("channel_capacity", 16).put("conn_workers", 1));
    config.getJsonObject("limits").put("queries_per_connection", 1).put("max_subscriptions", 1);
    try (TestRelay relay = TestRelay.start(config, Map.of()); RelayClient pub = relay.connect()) {
      publishBig(pub, 600);
      List<RawSocket> flooders = new java.util.ArrayList<>();
      try {
        for (int f = 0; f < 4; f++) {
          RawSocket flooder = RawSocket.webSocket(relay.port(), "/");
          flooders.add(flooder);
          // a REQ whose ~8 MB answer fills its 4 KB window and the relay's socket buffers (the kernel's send
          // buffer alone may take 4 MB), then COUNTs that wait behind it
          flooder.sendText("[\"REQ\",\"all\",{\"kinds\":[1],\"limit\":600}]");
          for (int i = 0; i < 200; i++) {
            flooder.sendText("[\"COUNT\",\"c" + i + "\",{\"kinds\":[1]}]");
          }
        }
        Thread.sleep(1_000);
        try (RelayClient bystander = relay.connect()) {
          JsonObject e = Events.note(AUTHOR, "served meanwhile", List.of());
          bystander.publish(e);
          JsonArray ok = bystander.await(f -> "OK".equals(f.getString(0)), java.time.Duration.ofSeconds(10));
          assertTrue(ok.getBoolean(2), "another client on the same conn-worker is answered while the flooders read"
              + " nothing (not after their 60 s slow-consumer timeout)");
          bystander.req("s", new JsonObject().put("ids", new JsonArray().add(e.getString("id"))));
          bystander.await(f -> "EOSE".equals(f.getString(0)), java.time.Duration.ofSeconds(10));
        }
      } finally {
        for (RawSocket f : flooders) {
          f.close();
        }
      }
    }
  }

  @Test
  void aPausedSseReaderIsCutOffAtTheTimeout() throws Exception {
    try (TestRelay relay = TestRelay.start(limits("2s", 64L << 20), Map.of());
        RawSocket paused = RawSocket.eventStream(relay.port(), "/v1/events");
        RelayClient pub = relay.connect()) {
      Thread.sleep(300);
      publishBig(pub, 300);
      awaitCounter(relay, "sse", 15_000);
      Thread.sleep(500);
      long bytes = paused.readToEof(10_000);
      assertTrue(bytes >= 0, "the paused SSE reader's TCP connection is closed");
      // ~4 MB of frames were due; a reset leaves the reader at most its own receive buffer, while a
      // response reset that waits for the queued chunks would let it drain megabytes first.
      assertTrue(bytes < 1L << 20, "cut, not drained (" + bytes + " bytes read)");
    }
  }

  @Test
  void anOversizedFragmentedMessageIsAnsweredAndClosedAtOnce() throws Exception {
    try (TestRelay relay = TestRelay.start(limits("30s", 64L << 20), Map.of());
        RawSocket hostile = RawSocket.webSocket(relay.port(), "/");
        RelayClient bystander = relay.connect()) {
      byte[] kb = new byte[1024];
      java.util.Arrays.fill(kb, (byte) 'a');
      long lastSent = System.currentTimeMillis();
      try {
        hostile.sendFrame(0x1, false, kb);
        for (int i = 0; i < 299; i++) { // ~300 KB against a 64 KiB limit
          hostile.sendFrame(0x0, i == 298, kb);
          lastSent = System.currentTimeMillis();
        }
      } catch (IOException cut) {
        // the server may cut the connection before the last fragment: that is the point
      }
      long bytes = hostile.readToEof(5_000);
      long closedAfter = System.currentTimeMillis() - lastSent;
      assertTrue(bytes > 0, "the NOTICE and the close frame came first");
      assertTrue(closedAfter < 2_000, "closed within 2 s, took " + closedAfter + " ms");
      JsonObject ok = Events.note(AUTHOR, "still served", List.of());
      assertTrue(bystander.publishAndWait(ok).getBoolean(2), "another connection is unaffected");
    }
  }

  private static Set<String> publishBig(RelayClient pub, int n) throws InterruptedException {
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < n; i++) {
      JsonObject e = Events.note(AUTHOR, i + " " + BIG, List.of());
      ids.add(e.getString("id"));
      pub.publish(e);
    }
    for (int i = 0; i < n; i++) {
      assertTrue(pub.awaitType("OK").getBoolean(2));
    }
    return ids;
  }

  private static void awaitCounter(TestRelay relay, String kind, long millis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    while (System.currentTimeMillis() < deadline) {
      if (slowConsumersClosed(relay, kind) >= 1) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no " + kind + " slow consumer was closed within " + millis + " ms");
  }

  private static double slowConsumersClosed(TestRelay relay, String kind) {
    Pattern p = Pattern.compile("cairn_slow_consumer_closed_total\\{kind=\"" + kind + "\"} ([0-9.E]+)");
    Matcher m = p.matcher(relay.metrics());
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }
}
