package dev.cairn.nostr;

/** NIP-01 kind ranges: which kinds are stored, replaced, addressed or never stored. */
public final class Kinds {
  public static final int METADATA = 0;
  public static final int CONTACTS = 3;
  public static final int DELETION = 5;
  public static final int AUTH = 22242;

  private Kinds() {}

  public static boolean isReplaceable(int kind) {
    return kind == METADATA || kind == CONTACTS || (kind >= 10000 && kind < 20000);
  }

  public static boolean isEphemeral(int kind) {
    return kind >= 20000 && kind < 30000;
  }

  public static boolean isAddressable(int kind) {
    return kind >= 30000 && kind < 40000;
  }

  /** Stored, never replaced: everything that is none of the three classes above. */
  public static boolean isRegular(int kind) {
    return !isReplaceable(kind) && !isEphemeral(kind) && !isAddressable(kind);
  }
}
