package dev.cairn.network;

import dev.cairn.tree.TreeMessage;
import java.util.List;

/** A conn-worker's inbox, all from network-manager. */
public sealed interface ConnWorkerInbox extends TreeMessage {
  record Attach(long connId, String tenant, int listener, String remote) implements ConnWorkerInbox {}

  record Detach(long connId) implements ConnWorkerInbox {}

  /** A text message, or null for a binary one (which NIP-01 does not use). */
  record BadFrame(long connId, String notice, short closeCode) implements ConnWorkerInbox {}

  record Parse(long connId, String text) implements ConnWorkerInbox {}

  record Ok(long connId, String eventId, boolean accepted, String message) implements ConnWorkerInbox {}

  /** History answer: stored events (already JSON) then EOSE, then live events held back meanwhile. */
  record History(long connId, String subId, List<String> eventJsons, List<String> heldLive) implements ConnWorkerInbox {}

  record Authenticated(long connId, String eventId, String pubkey, boolean ok, String message) implements ConnWorkerInbox {}

  record Live(long connId, List<String> subIds, String eventJson) implements ConnWorkerInbox {}

  record Counted(long connId, String subId, long count) implements ConnWorkerInbox {}

  record Refused(long connId, String subId, String message) implements ConnWorkerInbox {}
}
