package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code http.header_timeout} (1 s here): a client that does not complete its request head in time is
 * closed (slowloris), whether it stalls, trickles bytes or sends nothing, and an idle keep-alive
 * connection goes the same way; an idle WebSocket subscriber and an idle SSE stream, which have sent
 * their request long ago, stay open well past it.
 */
@Timeout(120)
class HeaderTimeoutTest {
  private static final long TIMEOUT_MS = 1_000;
  /** Scheduling slack on a busy 2-core machine. */
  private static final long MARGIN_MS = 2_000;
  private static final EventSigner SIGNER = EventSigner.random();
  private static TestRelay relay;

  @BeforeAll
  static void start() throws Exception {
    relay = TestRelay.start(new JsonObject().put("http", new JsonObject().put("header_timeout", "1s")), Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    relay.close();
  }

  private static Socket raw() throws IOException {
    Socket s = new Socket("127.0.0.1", relay.port());
    s.setSoTimeout(15_000);
    return s;
  }

  /** Reads until the server closes; returns the ms it took from {@code t0}. */
  private static long untilClosed(Socket s, long t0) throws IOException {
    InputStream in = s.getInputStream();
    try {
      while (in.read() != -1) {
        // a response the server may have sent (none expected for a partial head)
      }
    } catch (SocketException reset) {
      // closed with an RST: closed all the same
    }
    return (System.nanoTime() - t0) / 1_000_000;
  }

  @Test
  void aPartialRequestLineThatStallsIsClosed() throws Exception {
    try (Socket s = raw()) {
      long t0 = System.nanoTime();
      s.getOutputStream().write("GET / HT".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      long ms = untilClosed(s, t0);
      assertTrue(ms >= TIMEOUT_MS - 100 && ms < TIMEOUT_MS + MARGIN_MS, "closed after " + ms + " ms");
    }
  }

  @Test
  void headersTrickledAByteAtATimeAreClosedAtTheDeadlineNotReset() throws Exception {
    try (Socket s = raw()) {
      OutputStream out = s.getOutputStream();
      long t0 = System.nanoTime();
      out.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      byte[] header = "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".getBytes(StandardCharsets.US_ASCII);
      boolean cut = false;
      for (byte b : header) {
        try {
          out.write(b);
          out.flush();
        } catch (SocketException e) {
          cut = true;
          break;
        }
        Thread.sleep(100);
        if ((System.nanoTime() - t0) / 1_000_000 > TIMEOUT_MS + MARGIN_MS) {
          break;
        }
      }
      long ms = untilClosed(s, t0);
      assertTrue(cut || ms < TIMEOUT_MS + MARGIN_MS + 200, "still open after " + ms + " ms of trickled headers");
      assertTrue(ms >= TIMEOUT_MS - 100, "closed after " + ms + " ms");
    }
  }

  @Test
  void aConnectionThatSendsNothingIsClosed() throws Exception {
    try (Socket s = raw()) {
      long ms = untilClosed(s, System.nanoTime());
      assertTrue(ms < TIMEOUT_MS + MARGIN_MS, "closed after " + ms + " ms");
    }
  }

  @Test
  void keepAliveServesPromptRequestsAndClosesWhenIdle() throws Exception {
    try (Socket s = raw()) {
      OutputStream out = s.getOutputStream();
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
      for (int i = 0; i < 3; i++) {
        // each request within the timeout, but together longer than it: the deadline restarts per request
        Thread.sleep(TIMEOUT_MS / 2);
        out.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        assertEquals("HTTP/1.1 200 OK", in.readLine());
        int length = 0;
        String line;
        while (!(line = in.readLine()).isEmpty()) {
          if (line.toLowerCase().startsWith("content-length:")) {
            length = Integer.parseInt(line.substring(15).trim());
          }
        }
        in.read(new char[length]);
      }
      long t0 = System.nanoTime();
      assertEquals(-1, in.read(), "the idle keep-alive connection is closed");
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms < TIMEOUT_MS + MARGIN_MS, "closed after " + ms + " ms");
    }
  }

  @Test
  void idleWebSocketAndSseStreamOutliveTheTimeout() throws Exception {
    try (RelayClient watcher = relay.connect(); RelayClient publisher = relay.connect()) {
      watcher.req("live", new JsonObject().put("authors", new JsonArray().add(SIGNER.pubkey())).put("limit", 0));
      assertEquals("EOSE", watcher.awaitType("EOSE").getString(0));
      HttpResponse<InputStream> sse = TestRelay.http().send(HttpRequest.newBuilder(
          URI.create(relay.httpUrl() + "/v1/events")).build(), HttpResponse.BodyHandlers.ofInputStream());
      assertEquals(200, sse.statusCode());
      try (BufferedReader stream = new BufferedReader(new InputStreamReader(sse.body(), StandardCharsets.UTF_8))) {
        // the reset and the first heartbeat; then nothing for 15 s (sse.heartbeat_interval)
        String line;
        while (!(line = stream.readLine()).equals("event: heartbeat")) {
          assertFalse(line == null);
        }
        Thread.sleep(3 * TIMEOUT_MS);
        assertFalse(watcher.isClosed(), "the idle WebSocket subscriber is still open");
        JsonObject e = Events.note(SIGNER, "after a long idle", List.of());
        assertTrue(publisher.publishAndWait(e).getBoolean(2));
        assertEquals(e.getString("id"), watcher.await(f -> "live".equals(f.getValue(1))).getJsonObject(2).getString("id"));
        while ((line = stream.readLine()) != null) {
          if (line.startsWith("data: ") && line.contains(e.getString("id"))) {
            return; // the SSE stream, idle for 3 timeouts, got the stored frame
          }
        }
        throw new AssertionError("the SSE stream was closed");
      }
    }
  }
}
