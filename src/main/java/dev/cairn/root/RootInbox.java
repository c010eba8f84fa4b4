package dev.cairn.root;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistResult;
import dev.cairn.store.StoredEvent;
import dev.cairn.store.SyncItems;
import dev.cairn.tree.TreeMessage;
import java.util.List;

/** Everything root receives: from network-manager, sig-manager, policy and database-engine. */
public sealed interface RootInbox extends TreeMessage {

  /** An EVENT a client published, parsed; not yet verified. {@code ip}: the client's, without port. */
  record Submit(long connId, String tenant, NostrEvent event, String authedPubkey, String ip) implements RootInbox {}

  /** A REQ's history query or a COUNT, to run against the tenant's store. */
  /** A NIP-42 AUTH event whose signature must be checked before the connection is authenticated. */
  record Authenticate(long connId, NostrEvent event) implements RootInbox {}

  record History(long connId, String tenant, String subId, long subSerial, List<Filter> filters, long seqBelow, boolean count,
      String ip) implements RootInbox {}

  record Verified(long ticket, boolean valid, String reason) implements RootInbox {}

  /** Policy's verdict: {@code rejection} null to pass; {@code muted}: answer OK true, neither store nor dispatch. */
  record Judged(long ticket, String rejection, boolean muted) implements RootInbox {}

  record Persisted(List<Ack> acks) implements RootInbox {
    public record Ack(long ticket, PersistResult result) {}
  }

  // ---- admission by policy: connections and REQs (network-manager -> root -> policy -> root) ----

  /** A WebSocket connection opened; policy may refuse it (it is then closed with 1008). */
  record Connected(long connId, String tenant, String ip) implements RootInbox {}

  record ConnectionAdmitted(long connId, String rejection) implements RootInbox {}

  /** A WebSocket connection closed: its queries still waiting for the store are not run. */
  record Disconnected(long connId) implements RootInbox {}

  /** Policy's answer to a REQ's admission: null runs its history query, otherwise it is CLOSED with this. */
  record ReqAdmitted(long ticket, String rejection) implements RootInbox {}

  record HistoryDone(long connId, String subId, long subSerial, boolean count, List<StoredEvent> events, long total, String error)
      implements RootInbox {}

  // ---- NIP-77 NEG-OPEN: network-manager -> root -> policy (admission) -> database-engine -> root ----

  /** A NEG-OPEN's read of the matching (created_at, id) items; {@code session} names it on its conn-worker. */
  record SyncOpen(long connId, String tenant, String subId, long session, Filter filter, String ip)
      implements RootInbox {}

  /** database-engine's answer to a {@code SyncRead}: {@code items} or {@code error}. */
  record SyncReadDone(long ticket, SyncItems items, String error) implements RootInbox {}

  // ---- live fan-out across pods: network-manager -> root -> database-engine -> root -> network-manager ----

  /** A seq gap in a tenant's live events: read {@code fromSeq <= seq < toSeqExclusive} from its store. */
  record CatchUp(String tenant, long fromSeq, long toSeqExclusive) implements RootInbox {}

  /**
   * database-engine's answer: the stored events of {@code [fromSeq, toSeq)} in seq order ({@code toSeq}:
   * what the read covered, less than asked when it hit its row cap), or {@code error}.
   */
  record CaughtUp(String tenant, long fromSeq, long toSeq, List<StoredEvent> events, String error)
      implements RootInbox {}
}
