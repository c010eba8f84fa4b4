package dev.cairn.crash;

import dev.cairn.feed.SseClient;
import dev.cairn.feed.SseClient.Frame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An SSE change-feed consumer as docs/sse-consumer.md describes one: it records every frame and keeps
 * the {@code id:} of the last frame it processed as its cursor, which is what it would persist and
 * resume from with {@code Last-Event-ID} after the relay comes back.
 */
final class FeedConsumer {
  static final String TOKEN = "crash-harness-token";
  private static final Duration CATCH_UP_WITHIN = Duration.ofSeconds(60);

  private final SseClient client;
  private final List<Frame> frames = new CopyOnWriteArrayList<>();
  private final Thread reader;
  private volatile String cursor;

  private FeedConsumer(SseClient client) {
    this.client = client;
    this.reader = new Thread(this::read, "crash-sse");
    reader.setDaemon(true);
  }

  static String url(int port) {
    return "http://127.0.0.1:" + port + "/v1/events";
  }

  private static Map<String, String> headers(String lastEventId) {
    return lastEventId == null ? Map.of("Authorization", "Bearer " + TOKEN)
        : Map.of("Authorization", "Bearer " + TOKEN, "Last-Event-ID", lastEventId);
  }

  /**
   * Connects without a cursor (a first start: {@code reset(initial_sync)}, a heartbeat, then live) and
   * returns once the first heartbeat says the stream is live, so the load that follows is all seen live.
   */
  static FeedConsumer follow(int port) throws Exception {
    FeedConsumer c = new FeedConsumer(SseClient.open(url(port), headers(null)));
    Frame f;
    do {
      f = c.client.next(CATCH_UP_WITHIN);
      c.record(f);
    } while (!f.event().equals("heartbeat"));
    c.reader.start();
    return c;
  }

  private void record(Frame f) {
    frames.add(f);
    cursor = f.id();
  }

  private void read() {
    try {
      while (true) {
        record(client.next(Duration.ofDays(1)));
      }
    } catch (AssertionError | InterruptedException e) {
      // SseClient reports the end of the stream (the relay died) as an AssertionError: done
    }
  }

  /** Waits for the stream to end (after the kill) and returns every frame received, in order. */
  List<Frame> awaitEnd() throws InterruptedException {
    reader.join(30_000);
    if (reader.isAlive()) {
      client.close();
      throw new AssertionError("the SSE stream outlived the relay process by 30 s");
    }
    return List.copyOf(frames);
  }

  /** The id of the last frame received: the consumer's persisted cursor. */
  String cursor() {
    return cursor;
  }

  /**
   * One catch-up read: connects with {@code lastEventId} (null: none), returns every frame up to and
   * including the first heartbeat (the contract's "caught up"), and disconnects.
   */
  static List<Frame> catchUp(int port, String lastEventId) throws Exception {
    List<Frame> out = new ArrayList<>();
    try (SseClient c = SseClient.open(url(port), headers(lastEventId))) {
      Frame f;
      do {
        f = c.next(CATCH_UP_WITHIN);
        out.add(f);
      } while (!f.event().equals("heartbeat"));
    }
    return out;
  }
}
