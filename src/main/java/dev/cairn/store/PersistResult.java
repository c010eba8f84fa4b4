package dev.cairn.store;

import java.util.List;

/** The outcome of persisting one event. */
public sealed interface PersistResult {

  /** Stored under {@code seq}; {@code removed} are the rows it replaced or deleted (same transaction). */
  record Stored(long seq, List<Removal> removed) implements PersistResult {
    public Stored {
      removed = List.copyOf(removed);
    }
  }

  /** Nothing written; the relay answers {@code OK true} with this message. */
  record Duplicate(String message) implements PersistResult {}

  /** Nothing written; the relay answers {@code OK false} with this message. */
  record Rejected(String message) implements PersistResult {}
}
