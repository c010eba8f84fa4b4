package dev.cairn.network;

import dev.cairn.tree.TreeMessage;

/** A listener's inbox: messages to write and connections to close. Message bytes are UTF-8 JSON, shared, never modified. */
public sealed interface ListenerInbox extends TreeMessage {
  /**
   * Messages for one connection, in order: message i is {@code heads[i]} alone when {@code events[i]}
   * is null, else the EVENT frame {@code heads[i] + events[i] + "]"} (see {@link FrameQueue}).
   */
  record Write(long connId, byte[][] heads, byte[][] events) implements ListenerInbox {
    static Write of(long connId, byte[] message) {
      return new Write(connId, new byte[][] {message}, new byte[1][]);
    }
  }

  /** One live event for many connections: connection i gets {@code heads[i] + event + "]"}. */
  record Deliver(byte[] event, long[] connIds, byte[][] heads) implements ListenerInbox {}

  record Close(long connId, short code, String reason) implements ListenerInbox {}

  /**
   * SSE (seed 003), from delivery: a chunk of frames for a stream. With {@code ack} the listener
   * answers {@code SseWritable} once written (at once when writable, after the drain otherwise);
   * with {@code end} it ends the response.
   */
  record SseWrite(long streamId, byte[] chunk, boolean ack, boolean end) implements ListenerInbox {}
}
