package dev.cairn.policy;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.tree.TreeMessage;
import java.util.List;

/**
 * policy's inbox, all from root. Judge, AdmitConnection and AdmitReq are answered to root
 * ({@code RootInbox.Judged}, {@code ConnectionAdmitted}, {@code ReqAdmitted}); the rest only
 * keep the in-flight query count. {@code ip} is the client's address without port (null: unknown).
 */
public sealed interface PolicyInbox extends TreeMessage {
  /** A verified event to judge before it may be stored or dispatched. */
  record Judge(long ticket, String tenant, NostrEvent event, String authedPubkey, String ip) implements PolicyInbox {}

  /** A WebSocket connection just opened (it is served meanwhile; a refusal closes it). */
  record AdmitConnection(long connId, String tenant, String ip) implements PolicyInbox {}

  /** A REQ (or COUNT) whose history query is about to run against the store. */
  record AdmitReq(long ticket, long connId, String tenant, String ip, String subId, List<Filter> filters, boolean count)
      implements PolicyInbox {}

  /** An admitted query was answered. */
  record QueryDone(long connId) implements PolicyInbox {}

  /** The database-engine was redeployed: the queries it held will not be answered. */
  record QueriesLost() implements PolicyInbox {}
}
