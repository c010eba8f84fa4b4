package dev.cairn.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.Events;
import dev.cairn.relay.RelayClient;
import dev.cairn.relay.TestRelay;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/examples/NatsConsumer.java (docs/nats-consumer.md) run as its users run it, against a relay with
 * {@code outbox.backend=nats} and the real JetStream at 127.0.0.1:4222 (skipped when it is not reachable):
 * every domain event once with its subject, a durable resume, and the nak / max-deliveries path.
 */
@Timeout(180)
class NatsExampleTest {
  private static final Path EXAMPLE = Path.of(System.getProperty("user.dir"), "docs", "examples", "NatsConsumer.java");

  @Test
  void theExampleConsumesEveryDomainEventOnceResumesAndSeesTheMaxDeliveriesAdvisory() throws Exception {
    EventSigner alice = EventSigner.random();
    try (NatsSupport nats = new NatsSupport();
        TestRelay relay = TestRelay.start(nats.config(NatsSupport.URL, "jetstream"), Map.of());
        RelayClient ws = relay.connect()) {
      long now = Events.now();
      List<JsonObject> events = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        events.add(Events.note(alice, "note " + i, List.of()));
      }
      events.add(Events.signed(alice, 0, now - 10, List.of(), "{\"name\":\"v1\"}"));
      events.add(Events.signed(alice, 0, now, List.of(), "{\"name\":\"v2\"}"));
      events.add(Events.signed(alice, 5, now, List.of(List.of("e", events.get(0).getString("id"))), "gone"));
      for (JsonObject e : events) {
        assertTrue(ws.publishAndWait(e).getBoolean(2));
      }
      // 6 EventStored, an EventDeleted "replaced" (v1) and one "nip09" (note 0).
      OutboxDb.await("8 messages in the stream", 30, () -> nats.messageCount() == 8);

      Run first = run(nats, "example", Map.of("EXIT_WHEN_IDLE", "1"), 60);
      assertEquals(0, first.exit, first.err);
      assertEquals(8, first.out.size(), first.out + first.err);
      for (int i = 0; i < events.size(); i++) {
        String id = events.get(i).getString("id");
        assertEquals(1, first.out.stream().filter(l -> l.startsWith("EventStored " + nats.prefix + ".default.EventStored")
            && l.contains(" tenant=default ") && l.endsWith(" id=" + id)).count(), id + " in " + first.out);
      }
      assertTrue(first.out.contains("EventDeleted " + nats.prefix + ".default.EventDeleted tenant=default seq=4 id="
          + events.get(3).getString("id") + " reason=replaced"), first.out.toString());
      assertTrue(first.out.stream().anyMatch(l -> l.startsWith("EventDeleted ") && l.endsWith(
          " id=" + events.get(0).getString("id") + " reason=nip09")), first.out.toString());

      // A durable consumer: the next run gets only what came after.
      JsonObject later = Events.note(alice, "later", List.of());
      assertTrue(ws.publishAndWait(later).getBoolean(2));
      OutboxDb.await("9 messages in the stream", 30, () -> nats.messageCount() == 9);
      Run second = run(nats, "example", Map.of("EXIT_WHEN_IDLE", "1"), 60);
      assertEquals(List.of("EventStored " + nats.prefix + ".default.EventStored tenant=default seq=7 id="
          + later.getString("id")), second.out, second.err);

      // A handler that always fails: nak with backoff, then JetStream's max-deliveries advisory (no DLQ).
      Path err = Files.createTempFile("nats-example", ".err");
      Process p = start(nats, "failing", Map.of("MAX_DELIVER", "2", "FAIL_FIRST", "99"), err,
          nats.prefix + ".default.EventDeleted");
      try {
        OutboxDb.await("2 max-deliveries advisories", 60,
            () -> Files.readString(err).split("max deliveries: ", -1).length - 1 == 2);
        String log = Files.readString(err);
        assertTrue(log.contains("delivery 1/2: simulated failure; retry in 5 s"), log);
        assertTrue(log.contains("delivery 2/2: simulated failure; giving up"), log);
        assertTrue(log.contains("\"consumer\":\"failing\""), log);
      } finally {
        p.destroy();
        p.waitFor(10, TimeUnit.SECONDS);
        Files.deleteIfExists(err);
      }
    }
  }

  private record Run(int exit, List<String> out, String err) {}

  private static Run run(NatsSupport nats, String consumer, Map<String, String> env, int seconds) throws Exception {
    Path err = Files.createTempFile("nats-example", ".err");
    try {
      Process p = start(nats, consumer, env, err, nats.prefix + ".>");
      byte[] out = p.getInputStream().readAllBytes();
      assertTrue(p.waitFor(seconds, TimeUnit.SECONDS), "the example did not exit");
      String text = new String(out, StandardCharsets.UTF_8);
      return new Run(p.exitValue(), text.isEmpty() ? List.of() : List.of(text.split("\n")), Files.readString(err));
    } finally {
      Files.deleteIfExists(err);
    }
  }

  /** {@code java -cp <the test classpath: jnats> NatsConsumer.java <url> <stream> <filter> <consumer>}. */
  private static Process start(NatsSupport nats, String consumer, Map<String, String> env, Path err, String filter)
      throws IOException {
    ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), EXAMPLE.toString(), NatsSupport.URL, nats.stream, filter, consumer)
        .redirectError(err.toFile());
    pb.environment().putAll(env);
    return pb.start();
  }
}
