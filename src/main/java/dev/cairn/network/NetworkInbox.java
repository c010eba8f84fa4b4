package dev.cairn.network;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.nostr.negentropy.VectorStorage;
import dev.cairn.store.StoredEvent;
import dev.cairn.tree.TreeMessage;
import java.util.List;

/** network-manager's inbox: from listeners, conn-workers and root. */
public sealed interface NetworkInbox extends TreeMessage {
  // from a listener
  /** A WebSocket was accepted; {@code relayUrl} is where the client reached it (NIP-42's relay tag must name it). */
  record Opened(long connId, String tenant, int listener, String remote, String relayUrl) implements NetworkInbox {}

  /** One client message: UTF-8 bytes, checked to be valid UTF-8. */
  record Frame(long connId, byte[] message) implements NetworkInbox {}

  /** A frame that is not a text message in UTF-8: answered with a NOTICE, closed when {@code closeCode > 0}. */
  record BadFrame(long connId, String notice, short closeCode) implements NetworkInbox {}

  record Gone(long connId) implements NetworkInbox {}

  /**
   * Answers came for a client whose socket is full ({@code stalled}), or it has read them since: its
   * conn-worker starts none of its waiting queries meanwhile (see {@link ConnWorkerInbox.Stalled}).
   */
  record Stalled(long connId, boolean stalled) implements NetworkInbox {}

  // from a conn-worker
  record Publish(long connId, NostrEvent event, String authedPubkey) implements NetworkInbox {}

  record Authenticate(long connId, NostrEvent event) implements NetworkInbox {}

  record Subscribe(long connId, String subId, List<Filter> filters, boolean count) implements NetworkInbox {}

  record Unsubscribe(long connId, String subId) implements NetworkInbox {}

  /** NIP-77 NEG-OPEN: read the items of {@code filter} for the conn-worker's session {@code session}. */
  record SyncOpen(long connId, String subId, long session, Filter filter) implements NetworkInbox {}

  // from root
  record Outcome(long connId, String eventId, boolean accepted, String message) implements NetworkInbox {}

  /** The AUTH event's signature passed (or not): the connection is now authenticated as its pubkey. */
  record Authenticated(long connId, String eventId, String pubkey, boolean ok, String message) implements NetworkInbox {}

  record Dispatch(String tenant, NostrEvent event, long seq) implements NetworkInbox {}

  /** Policy refused the connection: NOTICE {@code reason}, then close with 1008 and {@code reason}. */
  record Refuse(long connId, String reason) implements NetworkInbox {}

  record HistoryAnswer(long connId, String subId, long subSerial, boolean count, List<StoredEvent> events, long total, String error)
      implements NetworkInbox {}

  // from live/LiveBus (another pod, over NATS)
  /**
   * Another pod's live event ({@code event} null: its beacon, "my writes reached {@code seq}"). Through
   * a channel like every other message, so that what it releases is ordered with local Dispatches.
   */
  record Remote(String pod, String tenant, long seq, NostrEvent event) implements NetworkInbox {}

  /**
   * A catch-up read for a seq gap in live events (see {@code live/LiveSequencer}): the stored events of
   * {@code [fromSeq, toSeq)} in seq order, a missing seq deleted or replaced; or {@code error}.
   */
  record CaughtUp(String tenant, long fromSeq, long toSeq, List<StoredEvent> events, String error)
      implements NetworkInbox {}

  /** The items of a NEG-OPEN (or why there are none: {@code error} with its NIP-77 prefix). */
  record SyncItemsRead(long connId, String subId, long session, VectorStorage items, String error)
      implements NetworkInbox {}
}
