package dev.cairn.store;

/**
 * One row of the NIP-86 admin tables of the meta DB: an entry of a tenant's list ({@code list} =
 * {@code banned_pubkey}, {@code allowed_pubkey} or {@code banned_event}; {@code note} its reason), or
 * a changed NIP-11 field ({@code list} = {@code info}, {@code value} the field name, {@code note} the
 * new text).
 */
public record AdminRow(String tenant, String list, String value, String note) {
  public static final String INFO = "info";
}
