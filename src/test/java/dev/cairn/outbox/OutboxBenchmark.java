package dev.cairn.outbox;

import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.Events;
import dev.cairn.relay.RelayClient;
import dev.cairn.relay.TestRelay;
import io.nats.client.JetStream;
import io.nats.client.PublishOptions;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Closing-note figures, not a test: {@code mvn -o test -Dtest=OutboxBenchmark -Dcairn.bench=true}.
 * (1) relay throughput: a backlog of rows written while NATS was unreachable, drained to JetStream;
 * (2) commit-to-publish latency under a steady load ({@code occurred_at}, stamped in the write
 * transaction, to the JetStream message time); side by side with publishing straight to JetStream.
 */
class OutboxBenchmark {
  static final int BACKLOG = Integer.getInteger("cairn.bench.backlog", 5000);
  static final int STEADY = Integer.getInteger("cairn.bench.steady", 2000);
  static final int RATE = Integer.getInteger("cairn.bench.rate", 500);

  @Test
  void figures() throws Exception {
    Assumptions.assumeTrue(Boolean.getBoolean("cairn.bench"), "benchmark: run with -Dcairn.bench=true");
    EventSigner signer = EventSigner.random();
    try (NatsSupport nats = new NatsSupport(); TcpProxy proxy = new TcpProxy(4222)) {
      Path data = Files.createTempDirectory("cairn-bench");
      JsonObject config = nats.config("nats://127.0.0.1:" + proxy.port(), "jetstream");
      // (1) backlog while NATS is away, then drain.
      proxy.stop();
      try (TestRelay relay = TestRelay.startOn(data, config); RelayClient client = relay.connect()) {
        List<JsonObject> events = new ArrayList<>();
        for (int i = 0; i < BACKLOG; i++) {
          events.add(Events.note(signer, "backlog " + i, List.of()));
        }
        for (JsonObject e : events) {
          client.publish(e);
        }
        for (int i = 0; i < BACKLOG; i++) {
          client.await(f -> f.getString(0).equals("OK"), Duration.ofSeconds(60));
        }
        proxy.start();
        OutboxDb.await("backlog drained", 300, () -> nats.messageCount() == BACKLOG);
        List<MessageInfo> msgs = nats.messages();
        long first = msgs.get(0).getTime().toInstant().toEpochMilli();
        long last = msgs.get(msgs.size() - 1).getTime().toInstant().toEpochMilli();
        System.out.printf("BENCH relay drain: %d rows in %d ms = %.0f rows/s%n", BACKLOG, last - first,
            BACKLOG * 1000.0 / Math.max(1, last - first));
        // (2) steady load through the outbox.
        List<JsonObject> steady = new ArrayList<>();
        for (int i = 0; i < STEADY; i++) {
          steady.add(Events.note(signer, "steady " + i, List.of()));
        }
        long start = System.nanoTime();
        for (int i = 0; i < STEADY; i++) {
          long due = start + i * 1_000_000_000L / RATE;
          while (System.nanoTime() < due) {
            Thread.onSpinWait();
          }
          client.publish(steady.get(i));
        }
        OutboxDb.await("steady load relayed", 120, () -> nats.messageCount() == BACKLOG + STEADY);
        List<Long> lat = new ArrayList<>();
        for (MessageInfo m : nats.messages()) {
          JsonObject body = new JsonObject(new String(m.getData(), StandardCharsets.UTF_8));
          if (body.getJsonObject("payload").getString("content").startsWith("steady")) {
            lat.add(m.getTime().toInstant().toEpochMilli() - body.getLong("occurred_at"));
          }
        }
        report("outbox commit-to-publish @" + RATE + "/s", lat);
      }
      TestRelayDirs.delete(data);
      // Straight to JetStream, same message shape, same steady rate, then a bulk burst.
      String stream = nats.stream + "_DIRECT";
      nats.jsm.addStream(StreamConfiguration.builder().name(stream).subjects(nats.prefix + "direct.>")
          .storageType(StorageType.File).duplicateWindow(Duration.ofHours(1)).build());
      try {
        JetStream js = nats.nc.jetStream();
        byte[] body = new JsonObject().put("event_id", "x").put("payload", Events.note(signer, "direct", List.of()))
            .encode().getBytes(StandardCharsets.UTF_8);
        List<Long> lat = Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<?>> fs = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < STEADY; i++) {
          long due = start + i * 1_000_000_000L / RATE;
          while (System.nanoTime() < due) {
            Thread.onSpinWait();
          }
          long sent = System.nanoTime();
          fs.add(js.publishAsync(nats.prefix + "direct.default.EventStored", body,
              PublishOptions.builder().messageId(UUID.randomUUID().toString()).build())
              .thenRun(() -> lat.add((System.nanoTime() - sent) / 1_000_000)));
        }
        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
        report("direct publish-to-ack @" + RATE + "/s", lat);
        fs.clear();
        long t0 = System.nanoTime();
        for (int i = 0; i < BACKLOG; i++) {
          fs.add(js.publishAsync(nats.prefix + "direct.default.EventStored", body,
              PublishOptions.builder().messageId(UUID.randomUUID().toString()).build()));
        }
        CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf("BENCH direct bulk publishAsync: %d msgs in %d ms = %.0f msgs/s%n", BACKLOG, ms,
            BACKLOG * 1000.0 / Math.max(1, ms));
      } finally {
        nats.jsm.deleteStream(stream);
      }
    }
  }

  private static void report(String what, List<Long> ms) {
    List<Long> s = new ArrayList<>(ms);
    Collections.sort(s);
    System.out.printf("BENCH %s: n=%d median=%d ms p99=%d ms max=%d ms%n", what, s.size(), s.get(s.size() / 2),
        s.get((int) Math.min(s.size() - 1, Math.ceil(s.size() * 0.99) - 1)), s.get(s.size() - 1));
  }
}
