package dev.cairn.store;

import java.util.Set;

/**
 * database-engine's feed reads, from delivery's SSE sessions (seed 003). Answered into
 * {@code DeliveryInbox.Feed} ({@code FeedOpened}, {@code FeedPageRead}); run on the reader pool and
 * counted per tenant ({@code cairn_feed_page_queries_total}).
 */
public sealed interface FeedCommand extends DatabaseInbox {
  /** A session starts: the tenant's feed epoch and retained range. */
  record Open(long sessionId, String tenant) implements FeedCommand {}

  /** Rows after {@code after}, at most {@code limit}, narrowed by kinds/authors (empty: all). */
  record Page(long sessionId, String tenant, long after, int limit, Set<Integer> kinds, Set<String> authors)
      implements FeedCommand {}
}
