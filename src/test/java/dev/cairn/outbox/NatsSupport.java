package dev.cairn.outbox;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/** The real NATS JetStream at 127.0.0.1:4222, with a unique stream and subject prefix per test. */
final class NatsSupport implements AutoCloseable {
  static final String URL = "nats://127.0.0.1:4222";

  final Connection nc;
  final JetStreamManagement jsm;
  final String stream;
  final String prefix;

  NatsSupport() throws Exception {
    Connection c;
    try {
      c = Nats.connect(URL);
    } catch (Exception e) {
      Assumptions.abort("NATS JetStream is not reachable at " + URL + " (.ci/run starts it): " + e);
      throw e;
    }
    nc = c;
    jsm = nc.jetStreamManagement();
    String id = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    stream = "CAIRN_TEST_" + id;
    prefix = "cairntest" + id;
  }

  /** The relay config for this stream. */
  JsonObject config(String url, String mode) {
    return new JsonObject()
        .put("outbox", new JsonObject().put("backend", "nats"))
        .put("nats", new JsonObject().put("url", url).put("mode", mode).put("stream", stream)
            .put("subject_prefix", prefix));
  }

  long messageCount() throws Exception {
    try {
      return jsm.getStreamInfo(stream).getStreamState().getMsgCount();
    } catch (JetStreamApiException e) {
      return -1;
    }
  }

  List<MessageInfo> messages() throws Exception {
    long last = jsm.getStreamInfo(stream).getStreamState().getLastSequence();
    List<MessageInfo> out = new ArrayList<>();
    for (long seq = 1; seq <= last; seq++) {
      try {
        out.add(jsm.getMessage(stream, seq));
      } catch (JetStreamApiException e) {
        // deleted sequence
      }
    }
    return out;
  }

  @Override
  public void close() throws Exception {
    try {
      jsm.deleteStream(stream);
    } catch (JetStreamApiException e) {
      // never created
    }
    nc.close();
  }
}
