package dev.cairn.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.delivery.outbox.StreamReconciler;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Start-time reconcile of an existing stream and consumer, against the real JetStream. */
class StreamReconcilerTest {
  private static final Duration WEEK = Duration.ofHours(168);

  @Test
  void aNewStreamGetsTheDuplicateWindowAndTheConfiguredMaxAgeAndZeroKeepsForever() throws Exception {
    try (NatsSupport nats = new NatsSupport()) {
      StreamReconciler.Reconciled first = StreamReconciler.reconcile(nats.jsm, nats.stream, nats.prefix + ".>", 5, WEEK);
      assertEquals(List.of(), first.warnings());
      assertTrue(first.consumerCreated());
      StreamConfiguration sc = nats.jsm.getStreamInfo(nats.stream).getConfiguration();
      assertEquals(WEEK, sc.getMaxAge());
      assertEquals(Duration.ofHours(1), sc.getDuplicateWindow());
      StreamReconciler.Reconciled again = StreamReconciler.reconcile(nats.jsm, nats.stream, nats.prefix + ".>", 5,
          Duration.ZERO);
      List<String> warnings = again.warnings();
      assertEquals(1, warnings.size(), warnings.toString());
      assertFalse(again.consumerCreated(), "the consumer of the first reconcile is kept");
      assertEquals(Duration.ZERO, nats.jsm.getStreamInfo(nats.stream).getConfiguration().getMaxAge());
    }
  }

  @Test
  void aMaxAgeShorterThanTheDuplicateWindowIsAConfigError() {
    io.vertx.core.json.JsonObject raw = new io.vertx.core.json.JsonObject()
        .put("nats", new io.vertx.core.json.JsonObject().put("stream_max_age", "30m"));
    dev.cairn.config.ConfigException e = org.junit.jupiter.api.Assertions.assertThrows(
        dev.cairn.config.ConfigException.class, () -> dev.cairn.delivery.outbox.OutboxSettings.from(raw));
    assertTrue(e.getMessage().contains("nats.stream_max_age") && e.getMessage().contains("at least 1h"), e.getMessage());
    assertEquals(Duration.ZERO, dev.cairn.delivery.outbox.OutboxSettings.from(new io.vertx.core.json.JsonObject()
        .put("nats", new io.vertx.core.json.JsonObject().put("stream_max_age", "0s"))).streamMaxAge());
  }

  @Test
  void anExistingStreamAndConsumerAreUpdatedInPlaceKeepingTheirOtherSettings() throws Exception {
    try (NatsSupport nats = new NatsSupport()) {
      nats.jsm.addStream(StreamConfiguration.builder().name(nats.stream).subjects(nats.prefix + ".>")
          .storageType(StorageType.Memory).duplicateWindow(Duration.ofMinutes(2)).maxMessages(12345)
          .description("operator's").build());
      nats.jsm.addOrUpdateConsumer(nats.stream, ConsumerConfiguration.builder().durable(StreamReconciler.CONSUMER)
          .filterSubject(nats.prefix + ".>").ackPolicy(AckPolicy.Explicit).maxDeliver(3)
          .ackWait(Duration.ofSeconds(30)).description("operator's consumer").build());
      List<String> warnings = StreamReconciler.reconcile(nats.jsm, nats.stream, nats.prefix + ".>", 7, WEEK).warnings();
      assertEquals(2, warnings.size(), warnings.toString());
      assertTrue(warnings.get(0).contains("max_age unlimited; updated it in place"), warnings.get(0));
      StreamConfiguration sc = nats.jsm.getStreamInfo(nats.stream).getConfiguration();
      assertEquals(Duration.ofHours(1), sc.getDuplicateWindow());
      assertEquals(WEEK, sc.getMaxAge());
      assertEquals(12345, sc.getMaxMsgs());
      assertEquals("operator's", sc.getDescription());
      assertEquals(StorageType.Memory, sc.getStorageType());
      ConsumerConfiguration cc = nats.jsm.getConsumerInfo(nats.stream, StreamReconciler.CONSUMER)
          .getConsumerConfiguration();
      assertEquals(7, cc.getMaxDeliver());
      assertEquals(StreamReconciler.ACK_WAIT, cc.getAckWait());
      assertEquals("operator's consumer", cc.getDescription());
      // A second start finds everything as needed: no warning.
      assertEquals(List.of(), StreamReconciler.reconcile(nats.jsm, nats.stream, nats.prefix + ".>", 7, WEEK).warnings());
    }
  }

  @Test
  void aRejectedUpdateLogsTheManualCommandAndStartGoesOn() throws Exception {
    try (NatsSupport nats = new NatsSupport()) {
      // max_age 30 min: JetStream refuses a duplicate window longer than max_age.
      nats.jsm.addStream(StreamConfiguration.builder().name(nats.stream).subjects(nats.prefix + ".>")
          .storageType(StorageType.Memory).maxAge(Duration.ofMinutes(30)).duplicateWindow(Duration.ofMinutes(2))
          .build());
      List<String> warnings = StreamReconciler.reconcile(nats.jsm, nats.stream, nats.prefix + ".>", 10,
          Duration.ofMinutes(30)).warnings();
      assertEquals(1, warnings.size(), warnings.toString());
      assertTrue(warnings.get(0).contains("nats stream edit " + nats.stream + " --dupe-window 1h --max-age 1800s"),
          warnings.get(0));
      assertEquals(Duration.ofMinutes(2), nats.jsm.getStreamInfo(nats.stream).getConfiguration().getDuplicateWindow());
      // The consumer was still created.
      assertEquals(10, nats.jsm.getConsumerInfo(nats.stream, StreamReconciler.CONSUMER)
          .getConsumerConfiguration().getMaxDeliver());
    }
  }
}
