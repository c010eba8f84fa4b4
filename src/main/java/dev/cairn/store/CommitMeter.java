package dev.cairn.store;

/**
 * What database-engine reports of each group commit, landed or failed ({@code cairn_store_commit_seconds},
 * {@code cairn_store_commit_events}): where an EVENT's wait for its OK goes when the store is the slow part.
 */
@FunctionalInterface
public interface CommitMeter {
  CommitMeter NONE = (tenant, nanos, events) -> { };

  /** A commit of {@code events} events of {@code tenant} took {@code nanos} from taking its batch to its outcome. */
  void committed(String tenant, long nanos, int events);
}
