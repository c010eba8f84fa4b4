package dev.cairn.store;

import java.util.List;

/**
 * A group commit of a batch taken when the commit started ({@link TenantStore#persistTaken}): the batch,
 * and either its outcome or why the store could not write it (then nothing of it was written).
 */
public record TakenBatch<T>(List<T> batch, PersistOutcome outcome, Throwable failure) {}
