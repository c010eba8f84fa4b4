package dev.cairn.nostr.negentropy;

/** What a range's payload holds; the wire value is the ordinal. */
enum Mode {
  /** Nothing more to do for this range; empty payload. */
  SKIP,
  /** 16-byte fingerprint of the sender's ids in the range. */
  FINGERPRINT,
  /** Varint count then every id the sender has in the range. */
  ID_LIST;

  private static final Mode[] VALUES = values();

  long code() {
    return ordinal();
  }

  /** The mode of wire value {@code code}, or null when it is not one the spec defines. */
  static Mode of(long code) {
    return code >= 0 && code < VALUES.length ? VALUES[(int) code] : null;
  }
}
