package dev.cairn.feed;

import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A real SSE client (java.net.http): reads the stream on its own thread and parses frames in order
 * for blocking assertions. Closing it closes the connection.
 */
public final class SseClient implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(30);

  /** One frame: {@code id:}, {@code event:}, {@code data:} as JSON. */
  public record Frame(String id, String event, JsonObject data) {
    public long seq() {
      return Long.parseLong(id.substring(id.indexOf(':') + 1));
    }

    public String epoch() {
      return id.substring(0, id.indexOf(':'));
    }
  }

  private static final HttpClient HTTP = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
  private static final Frame END = new Frame("", "", new JsonObject());

  private final InputStream body;
  private final LinkedBlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
  /** SSE comment lines received so far (keepalives), in order. */
  final java.util.List<String> comments = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Thread reader;
  final int status;
  final String contentType;

  private SseClient(HttpResponse<InputStream> resp) {
    this.status = resp.statusCode();
    this.contentType = resp.headers().firstValue("content-type").orElse("");
    this.body = resp.body();
    this.reader = new Thread(this::read, "sse-client");
    reader.setDaemon(true);
    reader.start();
  }

  public static SseClient open(String url) throws Exception {
    return open(url, Map.of());
  }

  public static SseClient open(String url, Map<String, String> headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).GET();
    headers.forEach(b::header);
    SseClient c = new SseClient(HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream()));
    if (c.status != 200) {
      throw new AssertionError("status " + c.status);
    }
    return c;
  }

  /** A plain GET: status and body (for 400/401/403). */
  static Reply get(String url, Map<String, String> headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).GET().timeout(Duration.ofSeconds(10));
    headers.forEach(b::header);
    HttpResponse<InputStream> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    if (r.statusCode() == 200) {
      r.body().close();
      return new Reply(r.statusCode(), "");
    }
    return new Reply(r.statusCode(), new String(r.body().readAllBytes(), StandardCharsets.UTF_8));
  }

  private void read() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8), 1 << 16)) {
      String id = null;
      String event = null;
      StringBuilder data = null;
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isEmpty()) {
          if (event != null) {
            frames.add(new Frame(id, event, new JsonObject(data == null ? "{}" : data.toString())));
          }
          id = null;
          event = null;
          data = null;
        } else if (line.startsWith("id: ")) {
          id = line.substring(4);
        } else if (line.startsWith("event: ")) {
          event = line.substring(7);
        } else if (line.startsWith(":")) {
          comments.add(line);
        } else if (line.startsWith("data: ")) {
          data = data == null ? new StringBuilder(line.substring(6)) : data.append('\n').append(line.substring(6));
        }
      }
    } catch (Exception e) {
      // closed
    } finally {
      frames.add(END);
    }
  }

  /** The next frame, or an AssertionError after {@code timeout}. */
  public Frame next(Duration timeout) throws InterruptedException {
    Frame f = frames.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (f == null) {
      throw new AssertionError("no SSE frame within " + timeout);
    }
    if (f == END) {
      frames.add(END);
      throw new AssertionError("SSE stream ended");
    }
    return f;
  }

  Frame next() throws InterruptedException {
    return next(WAIT);
  }

  /** The next frame matching {@code p}; the ones before it are returned in {@code skipped} when given. */
  Frame await(Predicate<Frame> p, List<Frame> skipped) throws InterruptedException {
    while (true) {
      Frame f = next();
      if (p.test(f)) {
        return f;
      }
      if (skipped != null) {
        skipped.add(f);
      }
    }
  }

  Frame await(String event) throws InterruptedException {
    return await(f -> f.event().equals(event), null);
  }

  /** Frames up to and including the first {@code heartbeat}. */
  List<Frame> untilHeartbeat() throws InterruptedException {
    List<Frame> out = new ArrayList<>();
    out.add(await(f -> f.event().equals("heartbeat"), out));
    return out;
  }

  @Override
  public void close() {
    try {
      body.close();
    } catch (Exception ignored) {
      // closing anyway
    }
    reader.interrupt();
  }

  /** A non-stream answer. */
  record Reply(int statusCode, String body) {}
}
