// A consumer of Cairn's outbox on NATS JetStream (outbox.backend=nats): Java 17 and jnats 2.21.1 only.
//   java -cp jnats-2.21.1.jar NatsConsumer.java [nats-url] [stream] [subject-filter] [consumer-name]
//   (from a Cairn checkout: java -cp target/cairn.jar docs/examples/NatsConsumer.java ...)
// Defaults: nats://127.0.0.1:4222 CAIRN_OUTBOX cairn.> my-app. One line per domain event on stdout.
// Env EXIT_WHEN_IDLE=1: exit after 3 s without a message. Env MAX_DELIVER (default 10). Env FAIL_FIRST=n:
// the first n deliveries of every message fail (to watch naks, redeliveries, the max-deliveries advisory).
import io.nats.client.*;
import io.nats.client.api.*;
import io.nats.client.support.JsonParser;
import io.nats.client.support.JsonValue;
import java.time.Duration;
import java.util.*;

public class NatsConsumer {
  static final int MAX_DELIVER = Integer.parseInt(System.getenv().getOrDefault("MAX_DELIVER", "10")); // Cairn's: outbox.max_attempts
  static final int FAIL_FIRST = Integer.parseInt(System.getenv().getOrDefault("FAIL_FIRST", "0"));
  // Your processed-event ledger. In production: a table with event_id as its primary key, inserted in
  // the same transaction as the effect, so a redelivered or republished event is skipped.
  static final Set<String> processed = new HashSet<>();

  // Your application: the effect of one domain event (EventStored / EventDeleted).
  static void apply(String subject, JsonValue body) {
    JsonValue payload = body.map.get("payload");
    System.out.println(body.map.get("type").string + " " + subject + " tenant=" + body.map.get("tenant").string
        + " seq=" + body.map.get("seq").number + " id=" + payload.map.get("id").string
        + (payload.map.containsKey("reason") ? " reason=" + payload.map.get("reason").string : ""));
  }

  public static void main(String[] args) throws Exception {
    String url = args.length > 0 ? args[0] : "nats://127.0.0.1:4222";
    String stream = args.length > 1 ? args[1] : "CAIRN_OUTBOX";
    String filter = args.length > 2 ? args[2] : "cairn.>";
    String name = args.length > 3 ? args[3] : "my-app";
    try (Connection nc = Nats.connect(url)) {
      // Your own durable consumer, never Cairn's "cairn-handlers" (you would take messages from its handlers).
      nc.jetStreamManagement().addOrUpdateConsumer(stream, ConsumerConfiguration.builder().durable(name)
          .filterSubject(filter).deliverPolicy(DeliverPolicy.All).ackPolicy(AckPolicy.Explicit)
          .ackWait(Duration.ofSeconds(60)).maxDeliver(MAX_DELIVER).build());
      // JetStream has no dead-letter queue: a message that used its last delivery is announced here.
      nc.createDispatcher(m -> System.err.println("max deliveries: " + new String(m.getData())))
          .subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + stream + "." + name);
      try (IterableConsumer messages = nc.getConsumerContext(stream, name).iterate()) {
        long idleSince = System.nanoTime();
        while (System.getenv("EXIT_WHEN_IDLE") == null || System.nanoTime() - idleSince < 3_000_000_000L) {
          Message m = messages.nextMessage(Duration.ofMillis(500));
          if (m != null) {
            handle(m);
            idleSince = System.nanoTime();
          }
        }
      }
    }
  }

  static void handle(Message m) {
    String eventId = m.getHeaders().getFirst("Nats-Msg-Id"); // = the body's event_id
    long delivery = m.metaData().deliveredCount();
    try {
      if (delivery <= FAIL_FIRST) throw new IllegalStateException("simulated failure");
      if (!processed.contains(eventId)) {
        apply(m.getSubject(), JsonParser.parse(m.getData()));
        processed.add(eventId);
      }
      m.ack();
    } catch (Exception e) {
      // The next delivery after 5 s doubling, capped at 300 s (Cairn's schedule). After the last one,
      // JetStream stops redelivering and publishes the max-deliveries advisory.
      Duration delay = Duration.ofMillis(Math.min(5_000L << Math.min(delivery - 1, 16), 300_000L));
      System.err.println("failed event_id=" + eventId + " delivery " + delivery + "/" + MAX_DELIVER + ": " + e.getMessage()
          + (delivery < MAX_DELIVER ? "; retry in " + delay.toSeconds() + " s" : "; giving up"));
      if (delivery < MAX_DELIVER) m.nakWithDelay(delay); else m.nak();
    }
  }
}
