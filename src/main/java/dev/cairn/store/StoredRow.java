package dev.cairn.store;

/**
 * A stored event as the write rules see it: enough to decide replacements and deletions, and its
 * JSON so that removing it can also remove its tag-index entries.
 */
public record StoredRow(long seq, String id, String pubkey, int kind, long createdAt, String dTag, byte[] json) {

  /** The replaceable/addressable address {@code kind:pubkey:d}, or null for other kinds. */
  public String address() {
    return dTag == null ? null : WriteRules.address(kind, pubkey, dTag);
  }
}
