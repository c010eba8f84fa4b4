package dev.cairn.policy;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.tree.TreeMessage;

/** policy's inbox: a verified event to judge before it may be stored or dispatched. */
public sealed interface PolicyInbox extends TreeMessage {
  record Judge(long ticket, String tenant, NostrEvent event, String authedPubkey) implements PolicyInbox {}
}
