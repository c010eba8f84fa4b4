package dev.cairn.root;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistResult;
import dev.cairn.store.StoredEvent;
import dev.cairn.tree.TreeMessage;
import java.util.List;

/** Everything root receives: from network-manager, sig-manager, policy and database-engine. */
public sealed interface RootInbox extends TreeMessage {

  /** An EVENT a client published, parsed; not yet verified. */
  record Submit(long connId, String tenant, NostrEvent event, String authedPubkey) implements RootInbox {}

  /** A REQ's history query or a COUNT, to run against the tenant's store. */
  /** A NIP-42 AUTH event whose signature must be checked before the connection is authenticated. */
  record Authenticate(long connId, NostrEvent event) implements RootInbox {}

  record History(long connId, String tenant, String subId, long subSerial, List<Filter> filters, long seqBelow, boolean count)
      implements RootInbox {}

  record Verified(long ticket, boolean valid, String reason) implements RootInbox {}

  record Judged(long ticket, String rejection) implements RootInbox {}

  record Persisted(List<Ack> acks) implements RootInbox {
    public record Ack(long ticket, PersistResult result) {}
  }

  record HistoryDone(long connId, String subId, long subSerial, boolean count, List<StoredEvent> events, long total, String error)
      implements RootInbox {}
}
