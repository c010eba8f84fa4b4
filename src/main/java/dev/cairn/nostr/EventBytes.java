package dev.cairn.nostr;

/**
 * An event's JSON as the relay stores and sends it (UTF-8), serialized once. When no string of the
 * event needed a {@code &#92;u00XX} escape, its JSON and its NIP-01 canonical form spell the tags and the
 * content with the same bytes, so {@link EventId} hashes those slices of {@code json} directly;
 * {@code tagsFrom} is -1 otherwise.
 */
public record EventBytes(byte[] json, int tagsFrom, int tagsTo, int contentFrom, int contentTo) {

  @Override
  public boolean equals(Object o) {
    return o instanceof EventBytes b && java.util.Arrays.equals(json, b.json) && tagsFrom == b.tagsFrom
        && tagsTo == b.tagsTo && contentFrom == b.contentFrom && contentTo == b.contentTo;
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(json);
  }

  @Override
  public String toString() {
    return new String(json, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** True when the tags and content slices are also the canonical (hashed) form. */
  public boolean canonicalSlices() {
    return tagsFrom >= 0;
  }
}
