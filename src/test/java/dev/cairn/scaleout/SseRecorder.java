package dev.cairn.scaleout;

import dev.cairn.feed.SseClient;
import dev.cairn.feed.SseClient.Frame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * An SSE change-feed consumer on one pod: waits until its stream is live (first heartbeat), then records
 * every {@code stored} frame's event id and feed seq, in arrival order.
 */
final class SseRecorder implements AutoCloseable {
  private final SseClient client;
  private final List<String> ids = new ArrayList<>();
  private final List<Long> seqs = new ArrayList<>();
  private final Thread reader;

  private SseRecorder(SseClient client) {
    this.client = client;
    this.reader = new Thread(this::read, "scaleout-sse");
    reader.setDaemon(true);
  }

  static SseRecorder follow(Pod pod) throws Exception {
    SseRecorder r = new SseRecorder(SseClient.open("http://127.0.0.1:" + pod.port + "/v1/events"));
    Frame f;
    do {
      f = r.client.next(Duration.ofSeconds(30));
    } while (!f.event().equals("heartbeat"));
    r.reader.start();
    return r;
  }

  private void read() {
    try {
      while (true) {
        Frame f = client.next(Duration.ofDays(1));
        if (f.event().equals("stored")) {
          synchronized (this) {
            ids.add(f.data().getJsonObject("event").getString("id"));
            seqs.add(f.seq());
          }
        }
      }
    } catch (AssertionError | InterruptedException e) {
      // the stream ended
    }
  }

  synchronized List<String> ids() {
    return List.copyOf(ids);
  }

  synchronized List<Long> seqs() {
    return List.copyOf(seqs);
  }

  @Override
  public void close() {
    client.close();
  }
}
