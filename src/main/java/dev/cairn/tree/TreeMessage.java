package dev.cairn.tree;

/**
 * Marker for every record that travels between nodes of the tree. Each node's inbox is a sealed
 * sub-interface of this one; all of them are passed by reference through {@link LocalCodec}.
 */
public interface TreeMessage {}
