package dev.cairn.delivery.feed;

import dev.cairn.delivery.FeedInbox;
import java.util.Set;

/** One SSE stream's state in delivery; touched on delivery's event loop only. */
final class FeedSession {
  /** What to do once the chunk in flight is written. */
  enum Next { NONE, PULL, CATCH_UP }

  final long id;
  final int listener;
  final String tenant;
  final String cursorEpoch;
  final Long cursorSeq;
  final Set<Integer> kinds;
  final Set<String> authors;

  String epoch;
  /** Highest seq scanned for this stream: every row up to it was sent (or narrowed away). */
  long scanned;
  /** Highest seq a wake announced. */
  long knownHigh;
  /** A signal-plane hint arrived (another pod wrote; no seq known): read once more when idle. */
  boolean hinted;
  /** False while opening and during the Phase 1 replay; true once caught up. */
  boolean live;
  boolean opened;
  boolean querying;
  boolean chunkOut;
  boolean writable = true;
  boolean closed;
  Next next = Next.NONE;
  /** A replay page read ahead while the chunk before it was still being written (null: none). */
  FeedInbox.FeedPageRead prefetched;
  int fullPages;
  long errorBackoff;
  long timer = -1;
  long heartbeatTimer = -1;
  long lastHeartbeatAt;
  int eventsSinceHeartbeat;

  FeedSession(long id, int listener, String tenant, String cursorEpoch, Long cursorSeq, Set<Integer> kinds,
      Set<String> authors) {
    this.id = id;
    this.listener = listener;
    this.tenant = tenant;
    this.cursorEpoch = cursorEpoch;
    this.cursorSeq = cursorSeq;
    this.kinds = kinds;
    this.authors = authors;
  }

  /** Nothing outstanding: no read, no chunk waiting for its write, no timer armed. */
  boolean idle() {
    return opened && !querying && !chunkOut && prefetched == null && timer < 0 && !closed;
  }
}
