package dev.cairn.network;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The trims of {@link SocketFootprint} reach into Vert.x internals: this fails when a Vert.x upgrade
 * moves them (the relay would still work, with a larger footprint per connection), and checks that a
 * trimmed socket still talks, drains and closes.
 */
class SocketFootprintTest {

  @Test
  void anAcceptedWebSocketWritesDirectlyAndDropsItsHandshakeFactoryAndStillWorks() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      SocketFootprint footprint = new SocketFootprint();
      CompletableFuture<String> checked = new CompletableFuture<>();
      HttpServer server = vertx.createHttpServer(new HttpServerOptions().setStrictThreadMode(true))
          .webSocketHandler(ws -> {
            try {
              boolean applied = footprint.apply(ws);
              String queue = footprint.queueClass(ws);
              boolean keeps = footprint.keepsFactory(ws);
              ws.drainHandler(v -> { });
              ws.textMessageHandler(text -> ws.writeTextMessage("echo " + text).onSuccess(v -> ws.close()));
              checked.complete(applied + " " + queue + " " + keeps);
            } catch (Exception e) {
              checked.completeExceptionally(e);
            }
          });
      int port = server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS)
          .actualPort();
      WebSocketClient client = vertx.createWebSocketClient();
      Promise<String> echoed = Promise.promise();
      Promise<Short> closed = Promise.promise();
      client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/"))
          .onSuccess(ws -> {
            ws.textMessageHandler(echoed::tryComplete);
            ws.closeHandler(v -> closed.tryComplete(ws.closeStatusCode()));
            ws.writeTextMessage("hi");
          })
          .onFailure(echoed::tryFail);
      assertEquals("true DirectOutboundMessageQueue false", checked.get(10, TimeUnit.SECONDS));
      assertEquals("echo hi", echoed.future().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
      assertEquals((short) 1000, closed.future().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
      client.close(); // held until here: Vert.x 5 closes an unreachable client's sockets
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
