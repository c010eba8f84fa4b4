package dev.cairn.sig;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.tree.TreeMessage;

/** A sig-worker's inbox: one event to hash and verify. */
public sealed interface SigWorkerInbox extends TreeMessage {
  record Check(long ticket, NostrEvent event) implements SigWorkerInbox {}
}
