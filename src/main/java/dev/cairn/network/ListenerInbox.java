package dev.cairn.network;

import dev.cairn.tree.TreeMessage;
import java.util.List;

/** A listener's inbox: frames to write and connections to close. */
public sealed interface ListenerInbox extends TreeMessage {
  record Write(long connId, List<String> frames) implements ListenerInbox {}

  record Close(long connId, short code, String reason) implements ListenerInbox {}

  /**
   * SSE (seed 003), from delivery: a chunk of frames for a stream. With {@code ack} the listener
   * answers {@code SseWritable} once written (at once when writable, after the drain otherwise);
   * with {@code end} it ends the response.
   */
  record SseWrite(long streamId, String chunk, boolean ack, boolean end) implements ListenerInbox {}
}
