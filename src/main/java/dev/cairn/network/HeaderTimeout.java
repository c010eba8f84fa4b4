package dev.cairn.network;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * {@code http.header_timeout}: a client has that long to send a complete request head, counted from
 * the moment its connection is ready (after the TLS handshake, which has its own timeout of the same
 * length) and again from the end of each response on a keep-alive connection. Past it the connection
 * is closed. A slowloris client (headers a byte at a time, or never finished) cannot hold a socket.
 *
 * <p>Not an idle timeout: while a request is being answered nothing is timed, so an SSE stream
 * (one response that lasts for hours) is never touched, and the handler removes itself from the
 * pipeline when the connection is upgraded to a WebSocket (a 101 response), so an idle subscriber is
 * not either. It sits between Vert.x's HTTP codec and its connection handler: it sees each decoded
 * request head coming in and each response going out. Everything runs on the channel's event loop.
 */
final class HeaderTimeout extends ChannelDuplexHandler {
  private static final Logger LOG = Logger.getLogger(HeaderTimeout.class.getName());
  static final String NAME = "cairn-header-timeout";
  private static final AtomicBoolean warned = new AtomicBoolean();

  private final long millis;
  private ScheduledFuture<?> timer;
  /** Request heads received and responses ended: when equal, the connection waits for a head. */
  private long heads;
  private long ends;

  private HeaderTimeout(long millis) {
    this.millis = millis;
  }

  /**
   * Adds the timeout to a new HTTP/1.x connection's pipeline (before Vert.x's handler, named
   * {@code handler}); none when {@code millis <= 0}. A pipeline not shaped as Vert.x 5 makes it (a
   * Vert.x upgrade that changed it) is logged once: the connections then go unprotected.
   */
  static void install(ChannelPipeline pipeline, long millis) {
    if (millis <= 0) {
      return;
    }
    if (pipeline == null || pipeline.get("handler") == null) {
      if (!warned.getAndSet(true)) {
        LOG.warning("http.header_timeout is not applied: unexpected Vert.x HTTP pipeline "
            + (pipeline == null ? "(none)" : pipeline.names()));
      }
      return;
    }
    if (pipeline.get(NAME) == null) {
      pipeline.addBefore("handler", NAME, new HeaderTimeout(millis));
    }
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive()) {
      arm(ctx);
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    cancel();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    arm(ctx);
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancel();
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof HttpRequest) {
      heads++;
      cancel();
    } else if (!(msg instanceof HttpContent)) {
      // not HTTP any more (an upgrade we did not see): nothing to time
      ctx.pipeline().remove(this);
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof HttpResponse r && r.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
      ctx.write(msg, promise);
      if (r.status().code() == HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
        ctx.pipeline().remove(this); // a WebSocket now: it may stay idle as long as it likes
      }
      return; // 100 Continue and the like end nothing
    }
    if (!(msg instanceof LastHttpContent)) {
      ctx.write(msg, promise);
      return;
    }
    // The end of a response: the next head is due within the timeout, counted from when the last
    // byte of this response was handed to the socket (a slow reader of a large response is not cut).
    ChannelPromise p = promise.unvoid();
    p.addListener(f -> {
      ends++;
      if (f.isSuccess() && ends >= heads && ctx.channel().isActive() && ctx.pipeline().get(NAME) == this) {
        arm(ctx);
      }
    });
    ctx.write(msg, p);
  }

  private void arm(ChannelHandlerContext ctx) {
    cancel();
    timer = ctx.executor().schedule(() -> {
      timer = null;
      if (heads <= ends && ctx.channel().isActive()) {
        LOG.fine(() -> "closing " + ctx.channel().remoteAddress() + ": no complete request head within "
            + millis + " ms");
        ctx.close();
      }
    }, millis, TimeUnit.MILLISECONDS);
  }

  private void cancel() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }
}
