package dev.cairn.network;

import dev.cairn.tree.TreeMessage;
import java.util.List;

/** A listener's inbox: frames to write and connections to close. */
public sealed interface ListenerInbox extends TreeMessage {
  record Write(long connId, List<String> frames) implements ListenerInbox {}

  record Close(long connId, short code, String reason) implements ListenerInbox {}
}
