package dev.cairn.delivery.outbox;

import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.ErrorListener;
import io.nats.client.JetStream;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.WorkerExecutor;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The NATS connection of delivery. Connects in the background (jnats retries forever, also for the
 * first connect), so the server starts while NATS is down; connection events come back onto
 * delivery's context. Blocking jnats calls run on {@code worker}.
 */
final class NatsLink {
  private static final Logger LOG = Logger.getLogger(NatsLink.class.getName());

  private final Context context;
  private final WorkerExecutor worker;
  private final String url;
  /** Called on delivery's context with true for the first connect, false for a reconnect. */
  private final Consumer<Boolean> onUp;
  private volatile Connection connection;
  private volatile JetStreamOf jetStream;
  /** Written on delivery's context; volatile for the metrics scrape. */
  private volatile boolean up;
  private boolean everUp;
  /** Set by {@link #close}: the connection's end is the relay's own, not an outage to warn about. */
  private volatile boolean closing;

  NatsLink(Context context, WorkerExecutor worker, String url, Consumer<Boolean> onUp) {
    this.context = context;
    this.worker = worker;
    this.url = url;
    this.onUp = onUp;
  }

  Future<Void> start() {
    Options options = new Options.Builder()
        .server(url)
        .connectionName("cairn-outbox")
        .connectionTimeout(Duration.ofSeconds(2))
        .maxReconnects(-1)
        .reconnectWait(Duration.ofMillis(500))
        .connectionListener(this::event)
        .errorListener(new ErrorListener() {})
        .build();
    return worker.executeBlocking(() -> {
      Nats.connectAsynchronously(options, true);
      return null;
    }, false).mapEmpty();
  }

  private void event(Connection conn, ConnectionListener.Events ev) {
    if (ev == ConnectionListener.Events.CONNECTED || ev == ConnectionListener.Events.RECONNECTED
        || ev == ConnectionListener.Events.RESUBSCRIBED) {
      connection = conn;
      context.runOnContext(v -> {
        boolean first = !everUp;
        everUp = true;
        if (!up) {
          LOG.info("outbox: connected to NATS at " + url);
        }
        up = true;
        onUp.accept(first);
      });
    } else if (ev == ConnectionListener.Events.DISCONNECTED || ev == ConnectionListener.Events.CLOSED) {
      context.runOnContext(v -> {
        if (up && !closing) {
          LOG.warning("outbox: lost NATS at " + url + "; rows wait in the outbox until it is back");
        }
        up = false;
      });
    }
  }

  /** True while connected (on delivery's context). */
  boolean up() {
    return up && connection != null && connection.getStatus() == Connection.Status.CONNECTED;
  }

  /** Whether the link was up at its last change (for {@code cairn_outbox_nats_connected}; any thread). */
  boolean connectedFlag() {
    return up;
  }

  Connection connection() {
    return connection;
  }

  /**
   * The connection's JetStream context, made once per connection (any thread): jnats parses the server's
   * version with regular expressions in each new one, which a context per published batch paid for.
   */
  JetStream jetStream() throws IOException {
    Connection c = connection;
    JetStreamOf made = jetStream;
    if (made == null || made.connection() != c) {
      made = new JetStreamOf(c, c.jetStream());
      jetStream = made;
    }
    return made.jetStream();
  }

  private record JetStreamOf(Connection connection, JetStream jetStream) {}

  Future<Void> close() {
    closing = true;
    Connection c = connection;
    if (c == null) {
      return Future.succeededFuture();
    }
    return worker.executeBlocking(() -> {
      c.close();
      return null;
    }, false).mapEmpty();
  }
}
