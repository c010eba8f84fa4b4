package dev.cairn.nostr;

/**
 * Relay-to-client frames (NIP-01, NIP-42, NIP-45, NIP-77) as ready-to-send UTF-8 JSON. An EVENT frame is
 * never built whole: it is {@link #eventPrefix} (one per subscription) + the event's stored JSON +
 * {@code "]"}, so the event bytes are shared by every subscriber that gets them.
 */
public final class RelayMessages {
  private RelayMessages() {}

  /** {@code ["EVENT",<subId>,} — the part of an EVENT frame before the event JSON; the frame ends with {@code ]}. */
  public static byte[] eventPrefix(String subId) {
    return new JsonBytes(subId.length() + 16).ascii("[\"EVENT\",").string(subId).put(',').toByteArray();
  }

  /** A whole {@code ["EVENT", subId, event]} frame (tests and tools; the relay shares the event bytes). */
  public static byte[] event(String subId, byte[] eventJson) {
    return new JsonBytes(eventJson.length + subId.length() + 16).ascii("[\"EVENT\",").string(subId).put(',')
        .raw(eventJson).put(']').toByteArray();
  }

  /** {@code ["OK", eventId, accepted, message]}. */
  public static byte[] ok(String eventId, boolean accepted, String message) {
    return new JsonBytes(96 + message.length()).ascii("[\"OK\",").string(eventId)
        .ascii(accepted ? ",true," : ",false,").string(message).put(']').toByteArray();
  }

  /** {@code ["EOSE", subId]}. */
  public static byte[] eose(String subId) {
    return frame("EOSE", subId);
  }

  /** {@code ["CLOSED", subId, message]}. */
  public static byte[] closed(String subId, String message) {
    return new JsonBytes(16 + subId.length() + message.length()).ascii("[\"CLOSED\",").string(subId).put(',')
        .string(message).put(']').toByteArray();
  }

  /** {@code ["NOTICE", message]}. */
  public static byte[] notice(String message) {
    return frame("NOTICE", message);
  }

  /** {@code ["COUNT", subId, {"count": n}]} (NIP-45). */
  public static byte[] count(String subId, long count) {
    return new JsonBytes(40 + subId.length()).ascii("[\"COUNT\",").string(subId).ascii(",{\"count\":").number(count)
        .ascii("}]").toByteArray();
  }

  /** {@code ["AUTH", challenge]} (NIP-42). */
  public static byte[] auth(String challenge) {
    return frame("AUTH", challenge);
  }

  /** {@code ["NEG-MSG", subId, hex]} (NIP-77). */
  public static byte[] negMsg(String subId, String hex) {
    return new JsonBytes(16 + subId.length() + hex.length()).ascii("[\"NEG-MSG\",").string(subId).put(',')
        .string(hex).put(']').toByteArray();
  }

  /** {@code ["NEG-ERR", subId, reason]} (NIP-77). */
  public static byte[] negErr(String subId, String reason) {
    return new JsonBytes(16 + subId.length() + reason.length()).ascii("[\"NEG-ERR\",").string(subId).put(',')
        .string(reason).put(']').toByteArray();
  }

  private static byte[] frame(String verb, String arg) {
    return new JsonBytes(verb.length() + arg.length() + 8).ascii("[\"").ascii(verb).ascii("\",").string(arg).put(']')
        .toByteArray();
  }
}
