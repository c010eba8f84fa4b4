package dev.cairn.store;

import dev.cairn.store.feed.FeedBounds;
import dev.cairn.store.feed.FeedChange;
import java.util.List;

/**
 * What one group commit did: a result per event (input order) and the change feed's part of it. The
 * feed rows are written in the same transaction under a savepoint of their own (docs/decisions/
 * 0003-write-path.md): when that insert fails it is rolled back alone, the events still commit, and
 * {@code feedError} hands the changes to the retry buffer (seed 003: the feed never fails the write).
 */
public record PersistOutcome(List<PersistResult> results, List<FeedChange> feed, FeedBounds feedBounds,
    Exception feedError) {

  /** The events' results only (tools and tests that do not look at the feed). */
  public static PersistOutcome of(List<PersistResult> results) {
    return new PersistOutcome(results, List.of(), null, null);
  }
}
