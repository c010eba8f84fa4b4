package dev.cairn.store;

import java.util.List;

/**
 * A group commit of a batch taken when the commit started ({@link TenantStore#persistTaken}): the batch,
 * either its outcome or why the store could not write it (then nothing of it was written), and how long
 * the commit took from taking its batch to its outcome ({@code nanos}; 0 for an empty batch).
 */
public record TakenBatch<T>(List<T> batch, PersistOutcome outcome, Throwable failure, long nanos) {}
