package dev.cairn.tree;

import java.util.List;

/** Messages on their way through one {@link BoundedChannel}, in order; the receiver returns their credit. */
record Delivery(BoundedChannel<?> channel, List<Object> payloads) {}
