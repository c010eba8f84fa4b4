package dev.cairn.nostr;

import java.util.ArrayList;
import java.util.List;

/** Reads the tags that carry protocol meaning (d, expiration, "-", e, a). */
public final class EventTags {
  private EventTags() {}

  /** First value of the first tag named {@code name}, or null. */
  public static String first(NostrEvent event, String name) {
    for (List<String> tag : event.tags()) {
      if (tag.size() >= 2 && tag.get(0).equals(name)) {
        return tag.get(1);
      }
    }
    return null;
  }

  /** Values (index 1) of every tag named {@code name}, in order. */
  public static List<String> values(NostrEvent event, String name) {
    List<String> out = new ArrayList<>();
    for (List<String> tag : event.tags()) {
      if (tag.size() >= 2 && tag.get(0).equals(name)) {
        out.add(tag.get(1));
      }
    }
    return out;
  }

  /** The d-tag that addresses an addressable event; "" when absent (NIP-01). */
  public static String dTag(NostrEvent event) {
    String d = first(event, "d");
    return d == null ? "" : d;
  }

  /** NIP-40 expiration in epoch seconds, or null when absent or not a non-negative integer. */
  public static Long expiration(NostrEvent event) {
    String v = first(event, "expiration");
    if (v == null || v.isEmpty() || v.length() > 18) {
      return null;
    }
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < '0' || c > '9') {
        return null;
      }
    }
    return Long.parseLong(v);
  }

  /** NIP-70: a {@code ["-"]} tag marks an event only its authenticated author may publish. */
  public static boolean isProtected(NostrEvent event) {
    for (List<String> tag : event.tags()) {
      if (tag.size() == 1 && tag.get(0).equals("-")) {
        return true;
      }
    }
    return false;
  }

  /** The address {@code kind:pubkey:d} of a replaceable (empty d) or addressable event. */
  public static String address(NostrEvent event) {
    String d = Kinds.isAddressable(event.kind()) ? dTag(event) : "";
    return event.kind() + ":" + event.pubkey() + ":" + d;
  }
}
