package dev.cairn.store.feed;

/**
 * A finished retention sweep: rows deleted in how many batches, the sweeping tenant's bounds after it,
 * and what was swept ({@code scope}: the tenant id, or {@code shared_pool:<db>} for a pool-wide sweep,
 * the label its deleted rows are counted under).
 */
public record SweepResult(int deleted, int batches, FeedBounds bounds, String scope) {}
