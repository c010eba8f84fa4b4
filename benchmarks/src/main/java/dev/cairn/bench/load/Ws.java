package dev.cairn.bench.load;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/** The Vert.x WebSocket client shared by the Java load clients. */
public final class Ws implements AutoCloseable {
  public final Vertx vertx;
  public final WebSocketClient client;
  private final String url;

  public Ws(String url, int maxConnections) {
    this.url = url;
    if (!url.startsWith("ws://") && !url.startsWith("wss://")) {
      throw new IllegalArgumentException("relay URL must be ws:// or wss://, got " + url);
    }
    this.vertx = Vertx.vertx(new VertxOptions().setBlockedThreadCheckInterval(60_000));
    this.client = vertx.createWebSocketClient(new WebSocketClientOptions()
        .setMaxConnections(Math.max(64, maxConnections))
        .setMaxFrameSize(1 << 20)
        .setMaxMessageSize(16 << 20)
        .setConnectTimeout(20_000)
        .setVerifyHost(false)
        .setTrustAll(true));
  }

  /**
   * Connects on an event loop of its own, round robin over the client's event loops: a connect called
   * from a connection's handler would otherwise land on that connection's event loop, and every socket
   * of the run would share one thread — the tool, not the relay, would set the pace.
   */
  public Future<WebSocket> connect() {
    ContextInternal ctx = ((VertxInternal) vertx).createEventLoopContext();
    Promise<WebSocket> connected = ctx.promise();
    ctx.runOnContext(v -> client.connect(new WebSocketConnectOptions().setAbsoluteURI(url).setTimeout(30_000))
        .onComplete(connected));
    return connected.future();
  }

  /**
   * Opens {@code n} connections, at most {@code parallel} handshakes at a time; {@code setup} runs on
   * each new socket (install handlers, send the first frames) and its future gates the next handshake.
   */
  public <T> Future<List<T>> connectAll(int n, int parallel, Function<WebSocket, Future<T>> setup) {
    Promise<List<T>> done = Promise.promise();
    List<T> out = new ArrayList<>(java.util.Collections.nCopies(n, null));
    AtomicInteger next = new AtomicInteger();
    AtomicInteger finished = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    Runnable[] launch = new Runnable[1];
    launch[0] = () -> {
      int i = next.getAndIncrement();
      if (i >= n) return;
      connect().compose(setup).onComplete(ar -> {
        if (ar.succeeded()) {
          synchronized (out) {
            out.set(i, ar.result());
          }
        } else if (failed.getAndIncrement() == 0) {
          done.tryFail(new IllegalStateException("connection " + i + " to " + url + " failed: " + ar.cause(),
              ar.cause()));
        }
        if (finished.incrementAndGet() == n) {
          done.tryComplete(out);
        } else {
          launch[0].run();
        }
      });
    };
    for (int i = 0; i < Math.min(parallel, n); i++) launch[0].run();
    return done.future();
  }

  @Override
  public void close() {
    try {
      client.close().await();
    } catch (Exception ignored) {
      // closing at exit
    }
    vertx.close();
  }
}
