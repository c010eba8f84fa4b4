package dev.cairn.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;

/**
 * The outbound side of one WebSocket. Messages wait in a {@link FrameQueue} and are encoded as
 * WebSocket text frames (server frames are unmasked; permessage-deflate, when negotiated, allows
 * uncompressed messages) straight into one pooled buffer per write, while the socket is writable:
 * one write and one flush for however many messages are due, instead of a syscall per message.
 * Netty's own outbound buffer therefore never holds more than about its high-water mark; what the
 * client has not taken yet waits here, as shared references, and is bounded by the caller.
 *
 * <p>Written only on the socket's event loop (the listener's).
 */
final class WsOutput {
  /**
   * Bytes encoded into one buffer before it is handed to the socket: as much as a socket may write in
   * one flush turn ({@code Listener.FLUSH_TURN_BYTES}), so a turn is one write system call where the
   * kernel takes it all. A REQ's answer of 500 events is ~650 KB: 64 KB buffers wrote it in 10 and more
   * calls (5.9-6.4 write calls per query of the benchmark's mix against 4.2, event-loop wake-ups
   * included; 9% more relay CPU per query), and at the fan-out overload the deliveries' p99 was twice
   * as long (docs/benchmarks.md, 5 December 19:00).
   */
  private static final int CHUNK = 256 * 1024;

  private final ChannelHandlerContext ctx;
  private final FrameQueue queue = new FrameQueue();
  /** Runs again once the upgrade is complete, when a drain came too early. */
  private final Runnable retry;
  private boolean upgraded;

  WsOutput(ChannelHandlerContext ctx, Runnable retry) {
    this.ctx = ctx;
    this.retry = retry;
  }

  /**
   * False while the HTTP encoder of the upgrade is still in the pipeline: Netty removes it once the
   * 101 response is written, and a raw frame written before then would reach it instead of the socket.
   */
  private boolean upgraded() {
    if (!upgraded) {
      upgraded = ctx.pipeline().get(io.netty.handler.codec.http.HttpResponseEncoder.class) == null
          && ctx.pipeline().get(io.netty.handler.codec.http.HttpServerCodec.class) == null;
    }
    return upgraded;
  }

  Channel channel() {
    return ctx.channel();
  }

  /** Queues one message (see {@link FrameQueue}); call {@link #drain} after a batch. */
  void add(byte[] head, byte[] event, boolean own) {
    queue.add(head, event, own);
  }

  /** True when the socket would take more now. */
  boolean writable() {
    return ctx.channel().isWritable();
  }

  /** Bytes written to the socket that the kernel has not taken yet (Netty's outbound buffer). */
  long socketPendingBytes() {
    ChannelOutboundBuffer buf = ctx.channel().unsafe().outboundBuffer();
    return buf == null ? 0 : buf.totalPendingWriteBytes();
  }

  /** Messages waiting for the client. */
  int queued() {
    return queue.size();
  }

  /** Payload bytes waiting for the client. */
  long queuedBytes() {
    return queue.bytes();
  }

  /** Payload bytes waiting that are this connection's own (answers, not shared deliveries). */
  long ownBytes() {
    return queue.ownBytes();
  }

  boolean idle() {
    return queue.isEmpty();
  }

  /** Forgets what waits (the connection is being closed). */
  void discard() {
    queue.clear();
  }

  /**
   * Writes what is queued while the socket stays writable, then flushes once. Returns true when
   * everything was handed to the socket, false when some waits (the socket is full, or
   * {@code budget} bytes were written: the caller comes back for the rest).
   */
  boolean drain() {
    return drain(Long.MAX_VALUE);
  }

  boolean drain(long budget) {
    Channel ch = ctx.channel();
    if (queue.isEmpty()) {
      return true;
    }
    if (!ch.isActive()) {
      queue.clear();
      return true;
    }
    if (!upgraded()) {
      ctx.executor().execute(retry);
      return false;
    }
    boolean wrote = false;
    long written = 0;
    while (!queue.isEmpty() && ch.isWritable() && written < budget) {
      ByteBuf out = ctx.alloc().directBuffer((int) Math.min(CHUNK + 1024, queue.bytes() + 14L * queue.size()));
      while (!queue.isEmpty() && out.writerIndex() < CHUNK) {
        encode(out, queue.headAt0(), queue.eventAt0());
        queue.removeFirst();
      }
      written += out.readableBytes();
      ctx.write(out, ctx.voidPromise());
      wrote = true;
    }
    if (wrote) {
      ctx.flush();
    }
    return queue.isEmpty();
  }

  /** One unfragmented text frame: FIN + opcode 1, the payload length, then head [+ event + ']']. */
  private static void encode(ByteBuf out, byte[] head, byte[] event) {
    int len = FrameQueue.payloadLength(head, event);
    out.ensureWritable(len + 10);
    out.writeByte(0x81);
    if (len < 126) {
      out.writeByte(len);
    } else if (len < 65536) {
      out.writeByte(126);
      out.writeShort(len);
    } else {
      out.writeByte(127);
      out.writeLong(len);
    }
    out.writeBytes(head);
    if (event != null) {
      out.writeBytes(event);
      out.writeByte(']');
    }
  }
}
