package dev.cairn.network;

import dev.cairn.nostr.negentropy.VectorStorage;
import dev.cairn.store.StoredEvent;
import dev.cairn.tree.TreeMessage;
import java.util.List;

/** A conn-worker's inbox, all from network-manager. */
public sealed interface ConnWorkerInbox extends TreeMessage {
  record Attach(long connId, String tenant, int listener, String remote, String relayUrl) implements ConnWorkerInbox {}

  record Detach(long connId) implements ConnWorkerInbox {}

  /**
   * The client does not read what it is sent (its socket is full while answers still come), or reads
   * again: while it is stalled none of its waiting queries goes to the store.
   */
  record Stalled(long connId, boolean stalled) implements ConnWorkerInbox {}

  /** A message the listener could not pass on as text: answered with a NOTICE, closed when {@code closeCode > 0}. */
  record BadFrame(long connId, String notice, short closeCode) implements ConnWorkerInbox {}

  /** One client message: UTF-8 bytes, already checked to be valid UTF-8. */
  record Parse(long connId, byte[] message) implements ConnWorkerInbox {}

  record Ok(long connId, String eventId, boolean accepted, String message) implements ConnWorkerInbox {}

  /** History answer: stored events then EOSE, then the live events held back meanwhile (event JSON). */
  record History(long connId, String subId, List<StoredEvent> events, List<byte[]> heldLive) implements ConnWorkerInbox {}

  record Authenticated(long connId, String eventId, String pubkey, boolean ok, String message) implements ConnWorkerInbox {}

  /** One live event for this worker's connections: each match names the connection and the sub ids it wants it on. */
  record Live(byte[] event, List<SubscriptionRegistry.Match> matches) implements ConnWorkerInbox {}

  record Counted(long connId, String subId, long count) implements ConnWorkerInbox {}

  /** A REQ's or COUNT's read answered with a refusal: CLOSED with {@code message}. */
  record Refused(long connId, String subId, String message) implements ConnWorkerInbox {}

  /**
   * A subscription network-manager ended on its own (CLOSED with {@code message}); not its read's answer,
   * which network-manager drops when it comes ({@link ReadDropped}).
   */
  record Ended(long connId, String subId, String message) implements ConnWorkerInbox {}

  /** A read whose answer network-manager dropped (its REQ closed, replaced or ended meanwhile): nothing to send. */
  record ReadDropped(long connId) implements ConnWorkerInbox {}

  /** NIP-77: the items a NEG-OPEN's session reconciles against, or {@code error} to answer NEG-ERR with. */
  record SyncItemsRead(long connId, String subId, long session, VectorStorage items, String error)
      implements ConnWorkerInbox {}
}
