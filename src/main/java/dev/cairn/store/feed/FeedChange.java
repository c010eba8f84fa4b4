package dev.cairn.store.feed;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistResult;
import dev.cairn.store.Removal;
import java.util.ArrayList;
import java.util.List;

/**
 * One change of a tenant's store, before it has a feed seq: {@code stored} (the Nostr event, named by
 * its store seq: the row joins the event's JSON instead of copying it, from {@code removed_events}
 * once the event has left the store) or {@code deleted} (the removed event's id, kind, pubkey and
 * reason nip09 | replaced | expired). {@code ts} is when the change happened (ms); the feed seq is
 * assigned when the row is inserted.
 */
public record FeedChange(long ts, String type, String eventId, int kind, String pubkey, String reason, long storeSeq) {
  public static final String STORED = "stored";
  public static final String DELETED = "deleted";

  public static FeedChange stored(long ts, NostrEvent ev, long storeSeq) {
    return new FeedChange(ts, STORED, ev.id(), ev.kind(), ev.pubkey(), null, storeSeq);
  }

  public static FeedChange deleted(long ts, Removal r) {
    return new FeedChange(ts, DELETED, r.id(), r.kind(), r.pubkey(), r.reason().wireName(), 0);
  }

  /** The changes of one group commit: a {@code stored} row per stored event, a {@code deleted} per removal. */
  public static List<FeedChange> of(List<NostrEvent> events, List<PersistResult> results, long ts) {
    List<FeedChange> changes = new ArrayList<>(results.size());
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i) instanceof PersistResult.Stored s) {
        changes.add(stored(ts, events.get(i), s.seq()));
        for (Removal r : s.removed()) {
          changes.add(deleted(ts, r));
        }
      }
    }
    return changes;
  }
}
