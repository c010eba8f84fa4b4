package dev.cairn.bench.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The SSE replay client's parts: line splitting, de-chunking, the id set, and one real GET. */
class SseClientTest {
  private static final String ID_A = "a".repeat(16) + "0".repeat(48);
  private static final String ID_B = "b".repeat(64);

  @Test
  void findsTheFirstLineBreakAtEveryOffsetAndNoneWhereThereIsNone() {
    for (int len = 0; len < 40; len++) {
      byte[] b = new byte[len];
      java.util.Arrays.fill(b, (byte) 'x');
      assertEquals(-1, SseLineReader.lineBreak(b, 0, len), "no break in " + len + " bytes");
      for (int at = 0; at < len; at++) {
        b[at] = '\n';
        for (int from = 0; from <= at; from++) {
          assertEquals(at, SseLineReader.lineBreak(b, from, len), "len " + len + ", break at " + at + ", from " + from);
        }
        assertEquals(-1, SseLineReader.lineBreak(b, 0, at), "a break past the limit is not seen");
        b[at] = 'x';
      }
    }
  }

  @Test
  void aChunkedBodyReadsAsTheBytesItCarries() throws Exception {
    String body = "id: 1:1\nevent: stored\ndata: {\"seq\":1}\n\n";
    // chunks that cut lines, one with an extension, then the last chunk and a trailer-less end
    String wire = "7\r\n" + body.substring(0, 7) + "\r\n"
        + "a;name=value\r\n" + body.substring(7, 17) + "\r\n"
        + Integer.toHexString(body.length() - 17) + "\r\n" + body.substring(17) + "\r\n"
        + "0\r\n\r\n";
    InputStream in = new SseSocket.Dechunked(new ByteArrayInputStream(wire.getBytes(StandardCharsets.US_ASCII)));
    assertArrayEquals(body.getBytes(StandardCharsets.US_ASCII), in.readAllBytes());
    assertEquals(-1, in.read());
  }

  @Test
  void aChunkedBodyCutInsideAChunkIsAnErrorNotAnEnd() {
    InputStream in = new SseSocket.Dechunked(new ByteArrayInputStream("10\r\nonly five".getBytes(StandardCharsets.US_ASCII)));
    assertThrows(EOFException.class, in::readAllBytes);
  }

  @Test
  void aChunkSizeThatIsNotOneIsAClearError() {
    InputStream in = new SseSocket.Dechunked(new ByteArrayInputStream("zz\r\nabc\r\n".getBytes(StandardCharsets.US_ASCII)));
    java.io.IOException e = assertThrows(java.io.IOException.class, in::readAllBytes);
    assertEquals("not a valid chunk size \"zz\"", e.getMessage());
    InputStream endless = new SseSocket.Dechunked(new ByteArrayInputStream(
        "f".repeat(SseSocket.MAX_LINE + 10).getBytes(StandardCharsets.US_ASCII)));
    assertThrows(java.io.IOException.class, endless::readAllBytes, "a size line that never ends is refused");
  }

  @Test
  void theIdSetCountsEachKnownIdOnceAndNothingElse() {
    IdSet ids = new IdSet(List.of(ID_A, ID_B, ID_A));
    assertEquals(2, ids.size());
    IdSet.Seen seen = ids.seen();
    byte[] line = ("{\"id\":\"" + ID_A + "\"} " + ID_B + " " + "c".repeat(64)).getBytes(StandardCharsets.US_ASCII);
    seen.mark(line, 7);
    seen.mark(line, 7);
    assertEquals(1, seen.count(), "the same id twice counts once");
    seen.mark(line, 7 + 64 + 3); // ID_B
    seen.mark(line, 7 + 64 + 3 + 65); // not preloaded
    assertEquals(2, seen.count());
    assertEquals(0, ids.seen().count(), "each replay starts from none");
  }

  @Test
  void readsTheLinesOfAChunkedEventStream() throws Exception {
    List<String> frames = new ArrayList<>();
    for (int i = 1; i <= 300; i++) {
      frames.add("id: 7:" + i + "\nevent: stored\ndata: {\"seq\":" + i + ",\"event\":{\"id\":\"" + ID_B + "\","
          + "\"content\":\"" + "y".repeat(i * 7) + "\"}}\n\n");
    }
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/events", ex -> {
      ex.getResponseHeaders().add("Content-Type", "text/event-stream");
      ex.sendResponseHeaders(200, 0); // length 0: chunked
      try (OutputStream out = ex.getResponseBody()) {
        for (String f : frames) {
          out.write(f.getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
      }
    });
    server.start();
    try (SseSocket s = SseSocket.open(URI.create("http://127.0.0.1:" + server.getAddress().getPort()
        + "/v1/events?since=0"), 5000)) {
      assertEquals(200, s.status);
      SseLineReader in = new SseLineReader(s.body);
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      int withId = 0;
      while (in.next()) {
        got.write(in.buf, in.start, in.end - in.start);
        got.write('\n');
        if (in.startsWith("data: ") && in.eventIdOffset() >= 0) {
          withId++;
        }
      }
      assertEquals(String.join("", frames), got.toString(StandardCharsets.UTF_8));
      assertEquals(300, withId);
    } finally {
      server.stop(0);
    }
  }
}
