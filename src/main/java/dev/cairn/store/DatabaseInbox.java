package dev.cairn.store;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.tree.TreeMessage;
import java.util.List;

/** database-engine's inbox: from root, and {@link OutboxCommand} / {@link FeedCommand} from delivery. */
public sealed interface DatabaseInbox extends TreeMessage
    permits DatabaseInbox.Persist, DatabaseInbox.Query, OutboxCommand, FeedCommand {
  record Persist(long ticket, String tenant, NostrEvent event) implements DatabaseInbox {}

  record Query(long connId, String tenant, String subId, long subSerial, List<Filter> filters, long seqBelow, boolean count)
      implements DatabaseInbox {}
}
