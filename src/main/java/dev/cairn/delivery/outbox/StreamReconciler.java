package dev.cairn.delivery.outbox;

import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.DeliverPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * Reconcile of the JetStream stream and the handlers' durable consumer (seed 000), at every connect to
 * NATS and when a publish finds no stream ({@code OutboxDelivery}). A missing
 * one is created. An existing one is compared with what this build needs ({@code duplicate_window} 1 h,
 * {@code max_age} = {@code nats.stream_max_age}; {@code max_deliver} = {@code outbox.max_attempts},
 * {@code ack_wait}) and updated in place from a clone
 * of its own config, so operator-set and immutable fields are kept, with a warning. A rejected update
 * logs the manual {@code nats stream edit} / {@code nats consumer edit} command and start goes on.
 * Blocking: call on a worker thread.
 */
public final class StreamReconciler {
  private static final Logger LOG = Logger.getLogger(StreamReconciler.class.getName());
  public static final Duration DUPLICATE_WINDOW = Duration.ofHours(1);
  public static final Duration ACK_WAIT = Duration.ofSeconds(60);
  public static final String CONSUMER = "cairn-handlers";
  private static final int STREAM_NOT_FOUND = 10059;
  private static final int CONSUMER_NOT_FOUND = 10014;

  private StreamReconciler() {}

  /**
   * What a reconcile did: the warnings it logged (empty when everything matched or was created), and
   * whether it created the handlers' consumer (a consumer of the stream's earlier life is gone with it).
   */
  public record Reconciled(List<String> warnings, boolean consumerCreated) {}

  /** Reconciles the stream, then the consumer. */
  public static Reconciled reconcile(JetStreamManagement jsm, String stream, String subjects, int maxDeliver,
      Duration maxAge) throws IOException, JetStreamApiException {
    List<String> warnings = new ArrayList<>();
    StreamInfo si = null;
    try {
      si = jsm.getStreamInfo(stream);
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() != STREAM_NOT_FOUND) {
        throw e;
      }
    }
    if (si == null) {
      // Without a max_age the stream keeps every message forever: the broker's disk is the limit.
      jsm.addStream(StreamConfiguration.builder().name(stream).subjects(subjects).storageType(StorageType.File)
          .duplicateWindow(DUPLICATE_WINDOW).maxAge(maxAge).build());
      LOG.info("outbox: created JetStream stream " + stream + " (" + subjects + ", duplicate_window 1h, max_age "
          + ageText(maxAge) + ")");
    } else {
      StreamConfiguration sc = si.getConfiguration();
      Duration wasWindow = sc.getDuplicateWindow();
      Duration wasAge = sc.getMaxAge() == null ? Duration.ZERO : sc.getMaxAge();
      if (!DUPLICATE_WINDOW.equals(wasWindow) || !maxAge.equals(wasAge)) {
        String was = "duplicate_window " + wasWindow + ", max_age " + ageText(wasAge);
        String want = "duplicate_window 1h, max_age " + ageText(maxAge);
        try {
          jsm.updateStream(StreamConfiguration.builder(sc).duplicateWindow(DUPLICATE_WINDOW).maxAge(maxAge).build());
          warn(warnings, "outbox: JetStream stream " + stream + " had " + was + "; updated it in place to " + want
              + " (other settings kept)");
        } catch (JetStreamApiException e) {
          warn(warnings, "outbox: JetStream stream " + stream + " has " + was + " and the update to " + want
              + " was rejected (" + e.getMessage() + "); broker dedup or retention differ until fixed by hand:"
              + " nats stream edit " + stream + " --dupe-window 1h --max-age " + natsAge(maxAge));
        }
      }
    }
    ConsumerInfo ci = null;
    try {
      ci = jsm.getConsumerInfo(stream, CONSUMER);
    } catch (JetStreamApiException e) {
      if (e.getApiErrorCode() != CONSUMER_NOT_FOUND) {
        throw e;
      }
    }
    boolean consumerCreated = ci == null;
    if (ci == null) {
      jsm.addOrUpdateConsumer(stream, ConsumerConfiguration.builder().durable(CONSUMER).filterSubject(subjects)
          .ackPolicy(AckPolicy.Explicit).deliverPolicy(DeliverPolicy.All).maxDeliver(maxDeliver).ackWait(ACK_WAIT)
          .build());
      LOG.info("outbox: created JetStream consumer " + stream + "/" + CONSUMER + " (max_deliver " + maxDeliver + ")");
    } else {
      ConsumerConfiguration cc = ci.getConsumerConfiguration();
      if (cc.getMaxDeliver() != maxDeliver || !ACK_WAIT.equals(cc.getAckWait())) {
        String was = "max_deliver " + cc.getMaxDeliver() + ", ack_wait " + cc.getAckWait();
        try {
          jsm.addOrUpdateConsumer(stream, ConsumerConfiguration.builder(cc).maxDeliver(maxDeliver).ackWait(ACK_WAIT)
              .build());
          warn(warnings, "outbox: JetStream consumer " + stream + "/" + CONSUMER + " had " + was
              + "; updated it in place to max_deliver " + maxDeliver + ", ack_wait " + ACK_WAIT.toSeconds()
              + "s (other settings kept)");
        } catch (JetStreamApiException e) {
          warn(warnings, "outbox: JetStream consumer " + stream + "/" + CONSUMER + " has " + was
              + " and the update was rejected (" + e.getMessage() + "); fix it by hand: nats consumer edit " + stream
              + " " + CONSUMER + " --max-deliver " + maxDeliver + " --wait " + ACK_WAIT.toSeconds() + "s");
        }
      }
    }
    return new Reconciled(warnings, consumerCreated);
  }

  private static void warn(List<String> warnings, String message) {
    LOG.warning(message);
    warnings.add(message);
  }

  private static String ageText(Duration d) {
    return d.isZero() ? "unlimited" : d.toString();
  }

  /** The {@code nats} CLI's spelling: {@code 168h}, {@code 0} for unlimited. */
  private static String natsAge(Duration d) {
    return d.isZero() ? "0" : d.toSeconds() % 3600 == 0 ? d.toHours() + "h" : d.toSeconds() + "s";
  }
}
