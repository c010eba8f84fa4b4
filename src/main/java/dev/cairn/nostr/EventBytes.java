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

  /**
   * The UTF-8 length of the content: its slice of the serialized JSON less the quotes, each escape
   * counted as the one byte it stands for (the NIP-01 form escapes only quotes, backslashes and control
   * characters; everything else is raw UTF-8). What {@code limits.max_content_length} bounds, on the
   * live path and in an import alike; counted without decoding the content into a String.
   */
  public int contentLength() {
    int n = 0;
    for (int i = contentFrom + 1, end = contentTo - 1; i < end; i++) {
      if (json[i] == '\\') {
        i += json[i + 1] == 'u' ? 5 : 1;
      }
      n++;
    }
    return n;
  }
}
