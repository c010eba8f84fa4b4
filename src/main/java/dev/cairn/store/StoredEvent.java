package dev.cairn.store;

/** One stored event as returned by a query: its store seq, id, created_at and its JSON (UTF-8, shared, never modified). */
public record StoredEvent(long seq, String id, long createdAt, byte[] json) {}
