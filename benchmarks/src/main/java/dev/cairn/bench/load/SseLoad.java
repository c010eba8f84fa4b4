package dev.cairn.bench.load;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * sse (Cairn's change feed, docs/feed.md): after the store was preloaded with the first --max-events
 * events of --file (IngestLoad --preload), reads the feed's high seq (the {@code reset} frame of a stream
 * opened without a cursor), then opens {@code GET /v1/events?since=0} and times the replay until the
 * frame of that seq arrives. Frames are {@code id: <epoch>:<seq>} / {@code event: stored} /
 * {@code data: {"seq","ts","event"}}. Reports stored events/s over the replay and the time to the first
 * frame. Fails when a preloaded event has no {@code stored} frame, the stream ends early or errs, or the
 * replay takes longer than --timeout seconds.
 *
 * <pre>SseLoad --url ws://127.0.0.1:PORT --file preload.jsonl [--max-events N] [--timeout 120]
 *         [--warmup N] [--relay-name NAME] [--result-file f.jsonl]</pre>
 *
 * <p>{@code --warmup N} replays N times first, unmeasured: the relay is a fresh JVM per scenario, and a
 * single cold replay mostly measures its JIT warming up.
 */
public final class SseLoad {
  private static final Pattern HIGH_SEQ = Pattern.compile("\"high_seq\"\\s*:\\s*(\\d+)");

  public static void main(String[] argv) throws Exception {
    System.exit(run(new Args(argv)));
  }

  static String httpBase(String wsUrl) {
    URI u = URI.create(wsUrl);
    String scheme = "wss".equals(u.getScheme()) ? "https" : "http";
    return scheme + "://" + u.getHost() + (u.getPort() > 0 ? ":" + u.getPort() : "");
  }

  public static int run(Args a) throws Exception {
    String url = a.relayUrl();
    String base = httpBase(url);
    long timeoutS = a.lng("timeout", 120);
    List<EventLine> lines = EventFile.readAll(Path.of(a.required("file")), a.integer("max-events", Integer.MAX_VALUE));
    IdSet expected = new IdSet(lines.stream().map(EventLine::id).toList());
    Result r = new Result("sse", "java").put("level", "replay").put("url", base + "/v1/events?since=0")
        .put("events_preloaded", expected.size());
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10)).build();

    // the high seq, once the feed has caught up with the preload (its rows are inserted after each commit)
    long high = -1;
    long probeUntil = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < probeUntil) {
      long h;
      try {
        h = highSeq(http, base);
      } catch (java.io.IOException e) {
        r.error("GET " + base + "/v1/events failed: " + e);
        return r.finish(a);
      }
      if (h >= expected.size() && h == high) break;
      high = h;
      Thread.sleep(300);
    }
    if (high < 0) {
      r.error("no reset frame with a high_seq from " + base + "/v1/events (is this Cairn?)");
      return r.finish(a);
    }

    int warmups = a.integer("warmup", 0);
    for (int w = 1; w <= warmups; w++) {
      Replay x = replay(base, high, expected, timeoutS);
      if (x.error != null) {
        r.error("warm-up replay " + w + ": " + x.error);
        return r.finish(a);
      }
      System.out.printf(Locale.ROOT, "sse warm-up replay %d of %d: %.0f events/s%n", w, warmups, x.storedFrames / x.secs);
    }
    Replay x = replay(base, high, expected, timeoutS);
    if (x.error != null) {
      r.error(x.error);
      return r.finish(a);
    }
    r.put("warmup_replays", warmups).put("high_seq", high).put("last_seq", x.lastSeq)
        .put("stored_frames", x.storedFrames).put("other_frames", x.otherFrames)
        .put("preloaded_seen", x.seen).put("seconds", Result.round(x.secs))
        .put("first_frame_ms", x.firstFrameMs < 0 ? null : Result.round(x.firstFrameMs))
        .put("events_per_s", Result.round(x.storedFrames / x.secs)).put("mb_per_s", Result.round(x.bytes / 1048576.0 / x.secs));
    System.out.printf(Locale.ROOT, "sse replay of %d events (high seq %d%s): %d stored frames in %.2f s = %.0f events/s, "
        + "%.1f MB/s, first frame after %s ms%n", expected.size(), high, warmups > 0 ? ", after " + warmups + " warm-up replays" : "",
        x.storedFrames, x.secs, x.storedFrames / x.secs, x.bytes / 1048576.0 / x.secs,
        x.firstFrameMs < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", x.firstFrameMs));
    if (x.lastSeq < high) r.error("the replay stopped at seq " + x.lastSeq + " of " + high + " (" + x.ended + ")");
    if (x.seen < expected.size()) {
      r.error((expected.size() - x.seen) + " preloaded events had no stored frame in the replay");
    }
    return r.finish(a);
  }

  /** What one replay saw. */
  private static final class Replay {
    long storedFrames;
    long otherFrames;
    long lastSeq = -1;
    long bytes;
    int seen;
    double secs;
    double firstFrameMs = -1;
    String ended;
    String error;
  }

  /** One {@code GET /v1/events?since=0}, read until the row of {@code high} (or the timeout). */
  private static Replay replay(String base, long high, IdSet expected, long timeoutS)
      throws Exception {
    long t0 = System.nanoTime();
    long firstFrame = 0;
    long lastSeq = -1;
    long storedFrames = 0;
    long otherFrames = 0;
    IdSet.Seen seen = expected.seen();
    long bytes = 0;
    String ended = null;
    SseSocket resp;
    try {
      resp = SseSocket.open(URI.create(base + "/v1/events?since=0"), (int) Math.min(Integer.MAX_VALUE, timeoutS * 1000));
    } catch (java.io.IOException e) {
      Replay failed = new Replay();
      failed.error = "GET /v1/events?since=0 failed: " + e.getMessage();
      return failed;
    }
    if (resp.status != 200) {
      resp.close();
      Replay failed = new Replay();
      failed.error = "GET /v1/events?since=0 answered " + resp.status;
      return failed;
    }
    long deadline = t0 + timeoutS * 1_000_000_000L;
    SseLineReader in = new SseLineReader(resp.body);
    try (resp) {
      String type = null;
      long seq = -1;
      while (true) {
        if (System.nanoTime() > deadline) {
          ended = "timeout";
          break;
        }
        if (!in.next()) {
          ended = "stream ended";
          break;
        }
        if (in.startsWith("id: ")) {
          String id = in.text(4);
          seq = Long.parseLong(id.substring(id.lastIndexOf(':') + 1).trim());
        } else if (in.startsWith("event: ")) {
          type = in.text(7);
        } else if (in.startsWith("data: ")) {
          if (firstFrame == 0) firstFrame = System.nanoTime();
          if ("stored".equals(type)) {
            storedFrames++;
            int id = in.eventIdOffset();
            if (id >= 0) seen.mark(in.buf, id);
          } else {
            otherFrames++;
          }
        } else if (in.isEmpty()) {
          // rows only: a heartbeat or reset id is a cursor, not a row
          if (seq >= 0 && ("stored".equals(type) || "deleted".equals(type))) lastSeq = Math.max(lastSeq, seq);
          if (lastSeq >= high) break;
          type = null;
          seq = -1;
        }
      }
    } catch (java.io.IOException e) {
      ended = "read error: " + e;
    }
    long t1 = System.nanoTime();
    bytes = in.bytes;
    Replay x = new Replay();
    x.storedFrames = storedFrames;
    x.otherFrames = otherFrames;
    x.lastSeq = lastSeq;
    x.bytes = bytes;
    x.seen = seen.count();
    x.secs = Math.max(1e-6, (t1 - t0) / 1e9);
    x.firstFrameMs = firstFrame == 0 ? -1 : (firstFrame - t0) / 1e6;
    x.ended = ended;
    return x;
  }

  /** The high_seq of the reset frame a stream without a cursor starts with; -1 when there is none. */
  static long highSeq(HttpClient http, String base) throws Exception {
    HttpRequest req = HttpRequest.newBuilder(URI.create(base + "/v1/events"))
        .header("Accept", "text/event-stream").timeout(Duration.ofSeconds(10)).GET().build();
    HttpResponse<InputStream> resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    try (BufferedReader in = new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
      if (resp.statusCode() != 200) return -1;
      String line;
      long until = System.nanoTime() + 10_000_000_000L;
      while (System.nanoTime() < until && (line = in.readLine()) != null) {
        if (line.startsWith("data: ")) {
          Matcher m = HIGH_SEQ.matcher(line);
          if (m.find()) return Long.parseLong(m.group(1));
        }
      }
    }
    return -1;
  }
}
