package dev.cairn.store;

/** One stored event as returned by a query: its store seq and the raw JSON as received. */
public record StoredEvent(long seq, String id, long createdAt, String json) {}
