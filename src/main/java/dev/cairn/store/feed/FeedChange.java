package dev.cairn.store.feed;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.Removal;

/**
 * One change of a tenant's store, before it has a feed seq: {@code stored} (the Nostr event, named by
 * its store seq: the row joins the event's JSON instead of copying it, unless the event has left the
 * store by the time the row is written, hence {@code json}) or {@code deleted} (the removed event's
 * id, kind, pubkey and reason nip09 | replaced | expired). {@code ts} is when the change happened
 * (ms); the feed seq is assigned when the row is inserted.
 */
public record FeedChange(long ts, String type, String eventId, int kind, String pubkey, String reason, long storeSeq,
    byte[] json) {
  public static final String STORED = "stored";
  public static final String DELETED = "deleted";

  public static FeedChange stored(long ts, NostrEvent ev, long storeSeq) {
    return new FeedChange(ts, STORED, ev.id(), ev.kind(), ev.pubkey(), null, storeSeq, ev.json());
  }

  public static FeedChange deleted(long ts, Removal r) {
    return new FeedChange(ts, DELETED, r.id(), r.kind(), r.pubkey(), r.reason().wireName(), 0, null);
  }
}
