package dev.cairn.admin;

/** The NIP-11 fields NIP-86 may change, by their name in the meta DB's {@code admin_info.field}. */
public enum InfoField {
  NAME("name"),
  DESCRIPTION("description"),
  ICON("icon");

  private final String dbName;

  InfoField(String dbName) {
    this.dbName = dbName;
  }

  public String dbName() {
    return dbName;
  }

  static InfoField of(String name) {
    for (InfoField f : values()) {
      if (f.dbName.equals(name)) {
        return f;
      }
    }
    return null;
  }
}
