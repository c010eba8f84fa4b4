package dev.cairn.store;

/** A stored event that was removed (the "EventDeleted" domain event). */
public record Removal(String id, int kind, String pubkey, long seq, RemovalReason reason) {}
