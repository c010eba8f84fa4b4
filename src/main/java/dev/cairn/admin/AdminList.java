package dev.cairn.admin;

/** The lists NIP-86 manages, by their name in the meta DB's {@code admin_entries.list}. */
public enum AdminList {
  BANNED_PUBKEYS("banned_pubkey"),
  ALLOWED_PUBKEYS("allowed_pubkey"),
  BANNED_EVENTS("banned_event");

  private final String dbName;

  AdminList(String dbName) {
    this.dbName = dbName;
  }

  public String dbName() {
    return dbName;
  }

  /** The list stored as {@code name}, or null (a row a newer version wrote: ignored). */
  static AdminList of(String name) {
    for (AdminList l : values()) {
      if (l.dbName.equals(name)) {
        return l;
      }
    }
    return null;
  }
}
