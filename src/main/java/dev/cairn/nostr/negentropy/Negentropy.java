package dev.cairn.nostr.negentropy;

/**
 * Entry point and protocol constants for Negentropy V1, the range-based set reconciliation behind
 * NIP-77. See the package documentation for how the relay wires it to NEG-OPEN/NEG-MSG/NEG-CLOSE.
 */
public final class Negentropy {
  /** Protocol version 1, the first byte of every message. */
  public static final int PROTOCOL_VERSION = 0x61;

  /** Bytes in an item id (a Nostr event id). */
  public static final int ID_SIZE = 32;

  /** Bytes in a range fingerprint. */
  public static final int FINGERPRINT_SIZE = 16;

  /**
   * Smallest non-zero frame size limit: the reference keeps 200 bytes of headroom for the closing
   * fingerprint and refuses limits under 4096 bytes.
   */
  public static final long MIN_FRAME_SIZE_LIMIT = 4096;

  private Negentropy() {}

  /**
   * A responder over {@code storage}. {@code frameSizeLimit} caps each reply in bytes (0: no cap;
   * else at least 4096); it counts binary bytes, so a NEG-MSG frame carries about twice that in
   * hex.
   */
  public static NegentropyServer server(NegentropyStorage storage, long frameSizeLimit) {
    return new NegentropyServer(storage, frameSizeLimit);
  }

  /** A responder with no frame size limit. */
  public static NegentropyServer server(NegentropyStorage storage) {
    return server(storage, 0);
  }

  /** An initiator over {@code storage}; {@code frameSizeLimit} as for {@link #server}. */
  public static NegentropyClient client(NegentropyStorage storage, long frameSizeLimit) {
    return new NegentropyClient(storage, frameSizeLimit);
  }

  /** An initiator with no frame size limit. */
  public static NegentropyClient client(NegentropyStorage storage) {
    return client(storage, 0);
  }
}
