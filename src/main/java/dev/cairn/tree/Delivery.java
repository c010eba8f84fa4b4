package dev.cairn.tree;

/** A message on its way through one {@link BoundedChannel}; the receiver returns its credit. */
record Delivery(BoundedChannel<?> channel, Object payload) {}
