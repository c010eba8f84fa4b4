package dev.cairn.network;

import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.socket.SocketChannelConfig;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * Cuts a client's TCP connection now, whatever waits for it. A close through the channel pipeline
 * is not enough for a client that reads nothing: the WebSocket close handshake and Vert.x's HTTP
 * connection hold it until what is queued is written, so the socket stayed ESTABLISHED with
 * megabytes in the kernel's send buffer. Here the socket is reset (SO_LINGER 0: the kernel drops
 * its copy too) and closed at the transport, under the pipeline; Vert.x then sees it inactive and
 * cleans up as for any disconnect. Runs on the channel's event loop (hands itself over if called elsewhere).
 */
final class HardClose {
  private HardClose() {}

  static void now(Channel ch) {
    if (ch == null || !ch.isOpen()) {
      return;
    }
    if (!ch.eventLoop().inEventLoop()) {
      ch.eventLoop().execute(() -> now(ch)); // the transport is the channel's own thread's to touch
      return;
    }
    try {
      if (ch.config() instanceof SocketChannelConfig tcp) {
        tcp.setSoLinger(0);
      }
    } catch (ChannelException closedMeanwhile) {
      // closed between the check and here: nothing left to cut
    }
    ch.unsafe().close(ch.voidPromise());
  }

  /** The Netty channel under an HTTP connection (null if Vert.x ever hands out another kind). */
  static Channel channelOf(HttpConnection conn) {
    return conn instanceof ConnectionBase c ? c.channelHandlerContext().channel() : null;
  }
}
