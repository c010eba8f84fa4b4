package dev.cairn.network;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.internal.http.WebSocketInternal;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.logging.Logger;

/**
 * Trims what Vert.x keeps for each accepted WebSocket, so that thousands of idle subscribers cost a
 * few KB each (issue: at most 10 KiB of RSS per idle connection). Two things, both by reflection on
 * Vert.x internals because Vert.x offers no option for them:
 *
 * <ol>
 *   <li><b>Direct writes.</b> Every Vert.x connection has an outbound queue for writes from other
 *       threads; outside the HTTP server's strict thread mode (which Vert.x 5 applies to the HTTP
 *       connection, not to the WebSocket connection that replaces it) that is a multi-producer queue
 *       whose first array chunk alone is ~4 KB. The listener is the only writer of its sockets, on
 *       their event loop, so the queue Vert.x itself uses in strict mode (it writes straight through)
 *       is equivalent here.
 *   <li><b>The handshake's leftovers.</b> The WebSocket's pipeline handler keeps the factory that
 *       built its connection, a closure over the upgrade request, its response, the HTTP connection
 *       and their headers (~2.5 KB), although it runs only once, when the handler is added.
 * </ol>
 *
 * When a Vert.x version changes these internals the trim is skipped (logged once) and the socket
 * keeps what Vert.x gives it: correct, only larger. {@code SocketFootprintTest} fails on such an upgrade.
 */
final class SocketFootprint {
  private static final Logger LOG = Logger.getLogger(SocketFootprint.class.getName());

  private final Field conn;
  private final Field queue;
  private final Constructor<?> direct;
  private final Field factory;
  private boolean warned;

  SocketFootprint() {
    Field c = null;
    Field q = null;
    Constructor<?> d = null;
    Field f = null;
    try {
      Class<?> base = Class.forName("io.vertx.core.http.impl.WebSocketImplBase");
      Class<?> vc = Class.forName("io.vertx.core.net.impl.VertxConnection");
      Class<?> dq = Class.forName("io.vertx.core.net.impl.VertxConnection$DirectOutboundMessageQueue");
      Class<?> vh = Class.forName("io.vertx.core.net.impl.VertxHandler");
      c = base.getDeclaredField("conn");
      q = vc.getDeclaredField("outboundMessageQueue");
      d = dq.getDeclaredConstructor(vc);
      f = vh.getDeclaredField("connectionFactory");
      c.setAccessible(true);
      q.setAccessible(true);
      d.setAccessible(true);
      f.setAccessible(true);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.info("WebSocket connections keep Vert.x's default footprint (" + e + ")");
      c = null;
    }
    this.conn = c;
    this.queue = q;
    this.direct = d;
    this.factory = f;
  }

  /**
   * Trims {@code ws}; true when it now writes straight through (Vert.x then calls its drain handler
   * on every writability change). Call on the socket's event loop, before any write.
   */
  boolean apply(ServerWebSocket ws) {
    if (conn == null) {
      return false;
    }
    try {
      Object connection = conn.get(ws);
      queue.set(connection, direct.newInstance(connection));
      ChannelHandlerContext ctx = ((WebSocketInternal) ws).channelHandlerContext();
      ChannelHandler handler = ctx.handler();
      if (factory.getDeclaringClass().isInstance(handler)) {
        factory.set(handler, null);
      }
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      if (!warned) {
        warned = true;
        LOG.info("WebSocket connections keep Vert.x's default footprint (" + e + ")");
      }
      return false;
    }
  }

  /** The write queue's class for {@code ws} (tests). */
  String queueClass(ServerWebSocket ws) throws ReflectiveOperationException {
    return queue.get(conn.get(ws)).getClass().getSimpleName();
  }

  /** Whether {@code ws}'s pipeline handler still holds its connection factory (tests). */
  boolean keepsFactory(ServerWebSocket ws) throws ReflectiveOperationException {
    return factory.get(((WebSocketInternal) ws).channelHandlerContext().handler()) != null;
  }
}
