package dev.cairn.nostr;

/** Relay-to-client frames (NIP-01, NIP-42, NIP-45) as ready-to-send JSON text. */
public final class RelayMessages {
  private RelayMessages() {}

  /** {@code ["EVENT", subId, event]}; {@code eventJson} is an already serialized event, inserted verbatim. */
  public static String event(String subId, String eventJson) {
    StringBuilder sb = new StringBuilder(eventJson.length() + subId.length() + 16);
    sb.append("[\"EVENT\",");
    JsonStrings.quote(sb, subId);
    return sb.append(',').append(eventJson).append(']').toString();
  }

  /** {@code ["OK", eventId, accepted, message]}. */
  public static String ok(String eventId, boolean accepted, String message) {
    StringBuilder sb = new StringBuilder(96 + message.length());
    sb.append("[\"OK\",");
    JsonStrings.quote(sb, eventId);
    sb.append(accepted ? ",true," : ",false,");
    JsonStrings.quote(sb, message);
    return sb.append(']').toString();
  }

  /** {@code ["EOSE", subId]}. */
  public static String eose(String subId) {
    return frame("EOSE", subId);
  }

  /** {@code ["CLOSED", subId, message]}. */
  public static String closed(String subId, String message) {
    StringBuilder sb = new StringBuilder(16 + subId.length() + message.length());
    sb.append("[\"CLOSED\",");
    JsonStrings.quote(sb, subId);
    sb.append(',');
    JsonStrings.quote(sb, message);
    return sb.append(']').toString();
  }

  /** {@code ["NOTICE", message]}. */
  public static String notice(String message) {
    return frame("NOTICE", message);
  }

  /** {@code ["COUNT", subId, {"count": n}]} (NIP-45). */
  public static String count(String subId, long count) {
    StringBuilder sb = new StringBuilder(40 + subId.length());
    sb.append("[\"COUNT\",");
    JsonStrings.quote(sb, subId);
    return sb.append(",{\"count\":").append(count).append("}]").toString();
  }

  /** {@code ["AUTH", challenge]} (NIP-42). */
  public static String auth(String challenge) {
    return frame("AUTH", challenge);
  }

  private static String frame(String verb, String arg) {
    StringBuilder sb = new StringBuilder(verb.length() + arg.length() + 8);
    sb.append("[\"").append(verb).append("\",");
    JsonStrings.quote(sb, arg);
    return sb.append(']').toString();
  }
}
