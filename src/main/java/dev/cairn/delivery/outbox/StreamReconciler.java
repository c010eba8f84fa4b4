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
 * Start-time reconcile of the JetStream stream and the handlers' durable consumer (seed 000). A missing
 * one is created. An existing one is compared with what this build needs ({@code duplicate_window} 1 h;
 * {@code max_deliver} = {@code outbox.max_attempts}, {@code ack_wait}) and updated in place from a clone
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

  /** Reconciles; returns the warnings it logged (empty when everything matched or was created). */
  public static List<String> reconcile(JetStreamManagement jsm, String stream, String subjects, int maxDeliver)
      throws IOException, JetStreamApiException {
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
      jsm.addStream(StreamConfiguration.builder().name(stream).subjects(subjects).storageType(StorageType.File)
          .duplicateWindow(DUPLICATE_WINDOW).build());
      LOG.info("outbox: created JetStream stream " + stream + " (" + subjects + ", duplicate_window 1h)");
    } else if (!DUPLICATE_WINDOW.equals(si.getConfiguration().getDuplicateWindow())) {
      Duration was = si.getConfiguration().getDuplicateWindow();
      try {
        jsm.updateStream(StreamConfiguration.builder(si.getConfiguration()).duplicateWindow(DUPLICATE_WINDOW).build());
        warn(warnings, "outbox: JetStream stream " + stream + " had duplicate_window " + was
            + "; updated it in place to 1h (other settings kept)");
      } catch (JetStreamApiException e) {
        warn(warnings, "outbox: JetStream stream " + stream + " has duplicate_window " + was
            + " and the update to 1h was rejected (" + e.getMessage() + "); broker dedup is weaker until fixed by hand:"
            + " nats stream edit " + stream + " --dupe-window 1h");
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
    return warnings;
  }

  private static void warn(List<String> warnings, String message) {
    LOG.warning(message);
    warnings.add(message);
  }
}
