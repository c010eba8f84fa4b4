package dev.cairn.sig;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.tree.TreeMessage;

/** sig-manager's inbox: work from root, results from its workers. */
public sealed interface SigInbox extends TreeMessage {
  record Verify(long ticket, NostrEvent event) implements SigInbox {}

  record Checked(int worker, long ticket, boolean valid, String reason) implements SigInbox {}
}
