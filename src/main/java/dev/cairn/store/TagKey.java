package dev.cairn.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The key of a single-letter tag in the tag index: the first 63 bits of SHA-256(name, 0x00, value).
 * A fixed-size integer keeps each index entry to about 20 bytes whatever the value (an id, a pubkey,
 * a hashtag), so far more entries share a page than with the text itself. SHA-256 keeps the key
 * stable across versions and dialects, and a collision (2^-63 per pair; a chosen value cannot be
 * made to collide with a given one) costs at most an extra row from a #x query.
 */
public final class TagKey {
  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory in every JRE", e);
    }
  });

  private TagKey() {}

  public static long of(String name, String value) {
    MessageDigest md = SHA256.get();
    md.reset();
    md.update(name.getBytes(StandardCharsets.UTF_8));
    md.update((byte) 0);
    md.update(value.getBytes(StandardCharsets.UTF_8));
    byte[] h = md.digest();
    long k = 0;
    for (int i = 0; i < 8; i++) {
      k = (k << 8) | (h[i] & 0xff);
    }
    return k >>> 1;
  }

  /**
   * The index keys of an event's tags, in tag order (repeats kept: the dialects' inserts ignore an
   * existing entry). One definition, so every dialect indexes and un-indexes exactly the same entries.
   */
  public static java.util.List<Long> keys(java.util.List<java.util.List<String>> tags) {
    java.util.List<Long> out = new java.util.ArrayList<>(tags.size());
    for (java.util.List<String> tag : tags) {
      if (indexed(tag)) {
        out.add(of(tag.get(0), tag.get(1)));
      }
    }
    return out;
  }

  /** True for the tags the index keeps: a single-letter name and a value. */
  public static boolean indexed(java.util.List<String> tag) {
    return tag.size() >= 2 && tag.get(0).length() == 1;
  }
}
