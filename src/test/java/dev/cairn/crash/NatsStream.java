package dev.cairn.crash;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.Nats;
import io.vertx.core.json.JsonObject;
import java.util.UUID;

/**
 * A round's own JetStream stream on the NATS server at 127.0.0.1:4222 (the one .ci/run starts), for
 * rounds with {@code outbox.backend=nats}: a unique stream and subject prefix, so parallel runs and
 * other tests never share messages, deleted (with its consumer) when the round ends.
 */
final class NatsStream implements AutoCloseable {
  static final String URL = "nats://127.0.0.1:4222";

  private final Connection nc;
  final String stream;
  final String prefix;

  NatsStream() throws Exception {
    try {
      nc = Nats.connect(URL);
    } catch (Exception e) {
      throw new AssertionError("crash rounds on the nats backend need JetStream at " + URL + " (.ci/run starts it)", e);
    }
    String id = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    stream = "CAIRN_CRASH_" + id;
    prefix = "cairncrash" + id;
  }

  /** The relay's {@code nats} config section for this stream. */
  JsonObject config() {
    return new JsonObject().put("url", URL).put("mode", "jetstream").put("stream", stream).put("subject_prefix", prefix);
  }

  @Override
  public void close() throws Exception {
    try {
      nc.jetStreamManagement().deleteStream(stream);
    } catch (JetStreamApiException e) {
      // the relay never created it
    } finally {
      nc.close();
    }
  }
}
