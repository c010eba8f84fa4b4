package dev.cairn.store;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.tree.TreeMessage;
import java.util.List;

/** database-engine's inbox: from root, and {@link OutboxCommand} / {@link FeedCommand} from delivery. */
public sealed interface DatabaseInbox extends TreeMessage
    permits DatabaseInbox.Persist, DatabaseInbox.Query, DatabaseInbox.SyncRead, DatabaseInbox.CatchUp,
    DatabaseInbox.Disconnected, OutboxCommand, FeedCommand {
  record Persist(long ticket, String tenant, NostrEvent event) implements DatabaseInbox {}

  record Query(long connId, String tenant, String subId, long subSerial, List<Filter> filters, long seqBelow, boolean count)
      implements DatabaseInbox {}

  /** The connection closed: its queries that have not started are answered as dropped, not run. */
  record Disconnected(long connId) implements DatabaseInbox {}

  /** NIP-77 NEG-OPEN: the (created_at, id) items matching {@code filter}, at most {@code maxRecords}. */
  record SyncRead(long ticket, String tenant, Filter filter, int maxRecords) implements DatabaseInbox {}

  /**
   * Live fan-out across pods: the tenant's stored events with {@code fromSeq <= seq < toSeqExclusive}
   * in seq order, at most {@code max} (network-manager asks again for the rest).
   */
  record CatchUp(String tenant, long fromSeq, long toSeqExclusive, int max) implements DatabaseInbox {}
}
