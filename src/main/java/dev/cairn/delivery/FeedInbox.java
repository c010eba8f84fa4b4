package dev.cairn.delivery;

import dev.cairn.store.feed.FeedBounds;
import dev.cairn.store.feed.FeedPage;
import java.util.Set;

/**
 * delivery's SSE feed messages (seed 003): streams from the listeners, and database-engine's answers
 * to {@code store.FeedCommand}. ({@code FeedWake} is in {@link DeliveryInbox}.)
 */
public sealed interface FeedInbox extends DeliveryInbox {
  /**
   * A listener accepted {@code GET /v1/events} (token checked, cursor parsed): {@code cursorSeq} is
   * null without a cursor; {@code cursorEpoch} null for a bare seq.
   */
  record SseOpen(long streamId, int listener, String tenant, String cursorEpoch, Long cursorSeq,
      Set<Integer> kinds, Set<String> authors) implements FeedInbox {}

  /**
   * The listener wrote a chunk that asked for an answer, or its write queue drained: whether the
   * response can take more now. While not writable the session reads no page.
   */
  record SseWritable(long streamId, boolean writable) implements FeedInbox {}

  /**
   * A listener (re)started: the sessions of its earlier incarnation ({@code listener} and a stream id
   * below {@code firstStreamId}) are gone with it. Sent before any stream of the new incarnation.
   */
  record ListenerStarted(int listener, long firstStreamId) implements FeedInbox {}

  /** The client went away. */
  record SseClosed(long streamId) implements FeedInbox {}

  /** Answer to {@code FeedCommand.Open}; {@code error} non-null when the read failed. */
  record FeedOpened(long sessionId, String epoch, FeedBounds bounds, String error) implements FeedInbox {}

  /** Answer to {@code FeedCommand.Page}; {@code error} non-null when the read failed. */
  record FeedPageRead(long sessionId, FeedPage page, String error) implements FeedInbox {}
}
