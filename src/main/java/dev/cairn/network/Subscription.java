package dev.cairn.network;

import dev.cairn.nostr.Filter;
import java.util.ArrayList;
import java.util.List;

/**
 * One REQ of one connection, as the registry holds it. {@code seqFloor} is the history/live
 * boundary: the history query covers {@code seq < seqFloor}, live delivery {@code seq >= seqFloor}
 * (ephemeral events carry seq 0 and skip the floor). Live matches that arrive before the history
 * answer are held back so they follow EOSE, in order.
 */
final class Subscription {
  /** How many live events may wait for a slow history query before the REQ is closed. */
  static final int MAX_HELD_LIVE = 5000;

  final String subId;
  /** {@code [subId]}, built once: what a live match names (no list per event and connection). */
  final List<String> self;
  final long serial;
  final List<Filter> filters;
  final long seqFloor;
  /** {@link System#nanoTime} at registration (the REQ's history latency is measured from it). */
  final long registeredNanos = System.nanoTime();
  boolean historyDone;
  List<byte[]> heldLive;
  /** The registry's: the connection's subscriptions, and the last match this one took part in. */
  SubscriptionRegistry.ConnSubs owner;
  /** What a live match of this subscription alone answers, built once with {@code owner} (no object per event). */
  SubscriptionRegistry.Match alone;
  long matchedIn;

  Subscription(String subId, long serial, List<Filter> filters, long seqFloor) {
    this.subId = subId;
    this.self = List.of(subId);
    this.serial = serial;
    this.filters = filters;
    this.seqFloor = seqFloor;
  }

  /** Holds a live match until EOSE; false when too many are already held. */
  boolean hold(byte[] eventJson) {
    if (heldLive == null) {
      heldLive = new ArrayList<>();
    }
    if (heldLive.size() >= MAX_HELD_LIVE) {
      return false;
    }
    heldLive.add(eventJson);
    return true;
  }
}
