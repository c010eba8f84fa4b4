package dev.cairn.store;

/** Why a stored event left the store. */
public enum RemovalReason {
  /** Deleted by its author with a kind 5 event. */
  NIP09("nip09"),
  /** Superseded by a newer version of a replaceable or addressable event. */
  REPLACED("replaced"),
  /** NIP-40 expiration reached. */
  EXPIRED("expired");

  private final String wireName;

  RemovalReason(String wireName) {
    this.wireName = wireName;
  }

  /** The name used on the wire (change feed, outbox): {@code nip09 | replaced | expired}. */
  public String wireName() {
    return wireName;
  }

  public static RemovalReason fromWireName(String name) {
    for (RemovalReason r : values()) {
      if (r.wireName.equals(name)) {
        return r;
      }
    }
    throw new IllegalArgumentException("unknown removal reason: " + name);
  }
}
