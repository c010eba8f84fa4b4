package dev.cairn.nostr.negentropy;

import java.util.List;

/**
 * The responding side (the relay in NIP-77): answers each client message with one reply.
 *
 * <p>Holds no state between messages beyond its storage, so a NEG-OPEN creates one, each NEG-MSG
 * calls {@link #reconcile} (or {@link #reconcileHex}) and sends the result back as a NEG-MSG, and
 * NEG-CLOSE simply drops it. A {@link NegentropyException} means the client sent something
 * unusable: answer NEG-ERR and drop the session. A version the server cannot speak is not an error:
 * the reply is then the single byte {@code 0x61}, telling the client which version to retry with.
 *
 * <p>Not thread-safe; confine to one connection (the storage itself may be shared). Each call costs
 * O(items) fingerprinting in the worst case, so very large sets may belong on a worker thread
 * rather than an event loop.
 */
public final class NegentropyServer {
  private static final List<byte[]> UNUSED = List.of();

  private final Reconciler reconciler;

  NegentropyServer(NegentropyStorage storage, long frameSizeLimit) {
    this.reconciler = new Reconciler(storage, frameSizeLimit, false);
  }

  /** The reply to one client message. Never empty: it starts with the protocol version byte. */
  public byte[] reconcile(byte[] query) throws NegentropyException {
    return reconciler.reconcile(query, UNUSED, UNUSED);
  }

  /** {@link #reconcile} for the hex strings NEG-OPEN and NEG-MSG carry; bad hex is an error too. */
  public String reconcileHex(String query) throws NegentropyException {
    byte[] bytes;
    try {
      bytes = NegentropyHex.decode(query);
    } catch (IllegalArgumentException e) {
      throw new NegentropyException("invalid hex message: " + e.getMessage());
    }
    return NegentropyHex.encode(reconcile(bytes));
  }
}
