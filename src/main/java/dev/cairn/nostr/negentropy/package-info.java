/**
 * Negentropy protocol V1 (the set reconciliation of NIP-77), in plain Java with no Vert.x or store
 * dependency, byte-for-byte compatible with the reference implementation
 * (github.com/hoytech/negentropy, C++ and JS).
 *
 * <h2>Pieces</h2>
 *
 * <ul>
 *   <li>{@link dev.cairn.nostr.negentropy.VectorStorage}: the sorted (timestamp, id) set of one
 *       side, in primitive arrays; any other sorted structure can implement {@link
 *       dev.cairn.nostr.negentropy.NegentropyStorage}.
 *   <li>{@link dev.cairn.nostr.negentropy.NegentropyServer}: answers client messages (the relay).
 *   <li>{@link dev.cairn.nostr.negentropy.NegentropyClient}: initiates and collects have/need ids
 *       (tests, tools, relay-to-relay sync).
 *   <li>{@link dev.cairn.nostr.negentropy.NegentropyException}: the peer sent an unusable message.
 * </ul>
 *
 * <h2>Wiring NIP-77 in the relay</h2>
 *
 * <pre>{@code
 * // ["NEG-OPEN", subId, filter, initialHex]
 * VectorStorage.Builder b = VectorStorage.builder(expected);
 * for (each stored event matching filter) b.add(createdAt, idHex);   // any order
 * NegentropyServer session = Negentropy.server(b.build(), frameSizeLimit);
 * sessions.put(subId, session);                                        // replaces an open one
 * send(["NEG-MSG", subId, session.reconcileHex(initialHex)]);
 *
 * // ["NEG-MSG", subId, hex]
 * send(["NEG-MSG", subId, sessions.get(subId).reconcileHex(hex)]);
 *
 * // ["NEG-CLOSE", subId]
 * sessions.remove(subId);
 *
 * // NegentropyException e from reconcileHex:
 * sessions.remove(subId); send(["NEG-ERR", subId, "error: " + e.getMessage()]);
 * }</pre>
 *
 * <p>Set a frame size limit on the relay side: without one, a client that sends a single IdList
 * range over the whole universe gets every id back in one reply (32 bytes per item, 32 MB for a
 * million). The limit counts binary bytes and the NEG-MSG carries hex, so about half the largest
 * WebSocket frame the relay sends keeps replies within it. Other choices left to the relay: a cap
 * on the number of items (NIP-77 suggests {@code NEG-ERR "blocked: ..."} over it) and an idle
 * timeout ({@code "closed: ..."}); the {@code "error: "} prefix above is a suggestion too. The
 * storage is a snapshot taken at NEG-OPEN: events stored afterwards are not part of that session.
 * Timestamps are unsigned; {@code created_at} is never negative on a valid event.
 *
 * <h2>Cost</h2>
 *
 * <p>A VectorStorage costs 40 bytes per item. Answering a message costs O(n) at worst for the
 * fingerprints (ranges never overlap) plus O(log n) per range it holds. Measured on a shared 2-core
 * machine: 100k items per side with 1% difference reconcile in about 10 ms in total (2 rounds), a
 * million in about 150 ms once warm (3 rounds), so the relay may want large sets off the event
 * loop.
 */
package dev.cairn.nostr.negentropy;
