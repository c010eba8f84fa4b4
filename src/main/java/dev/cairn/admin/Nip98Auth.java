package dev.cairn.admin;

import dev.cairn.nostr.EventParser;
import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.nostr.RelayUrl;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * NIP-98 HTTP auth, everything but the signature: {@code Authorization: Nostr <base64 event>} must
 * hold a kind-27235 event dated within {@link #WINDOW_SECONDS} of now, whose {@code u} tag is the
 * URL the request reached (compared in the {@link RelayUrl} form NIP-42 uses, {@code http} as
 * {@code ws} and {@code https} as {@code wss}), whose {@code method} tag is the request's, and whose
 * {@code payload} tag is the SHA-256 of the body (required: NIP-86 says so, and without it a captured
 * header could carry any other call within its minute). Pure and cheap; the caller verifies the
 * signature off the event loop ({@link #signatureProblem}).
 */
public final class Nip98Auth {
  public static final int KIND = 27235;
  public static final long WINDOW_SECONDS = 60;
  /** A header longer than this is no NIP-98 event we would accept (a few hundred bytes in practice). */
  static final int MAX_HEADER = 16 * 1024;

  /** The outcome: the event that passed, or why it did not. */
  public sealed interface Checked {
    record Passed(NostrEvent event) implements Checked {}

    record Refused(String reason) implements Checked {}
  }

  private Nip98Auth() {}

  /**
   * @param header the {@code Authorization} header, null when absent
   * @param relayUrl the URL the request reached, in {@link RelayUrl} form ({@code ws://} or {@code wss://})
   */
  public static Checked check(String header, String relayUrl, String method, byte[] body, long nowSeconds) {
    if (header == null || header.isBlank()) {
      return refused("missing Authorization header: send \"Nostr <base64 of a signed kind-27235 event>\" (NIP-98)");
    }
    String h = header.trim();
    if (h.length() > MAX_HEADER) {
      return refused("Authorization header longer than " + MAX_HEADER + " characters");
    }
    if (!h.regionMatches(true, 0, "Nostr ", 0, 6)) {
      return refused("Authorization scheme must be \"Nostr\" (NIP-98)");
    }
    byte[] json;
    try {
      json = Base64.getDecoder().decode(h.substring(6).trim());
    } catch (IllegalArgumentException e) {
      return refused("Authorization: the event is not valid base64");
    }
    NostrEvent e;
    try {
      e = EventParser.parse(json);
    } catch (InvalidMessageException x) {
      return refused("Authorization: " + x.getMessage());
    }
    if (e.kind() != KIND) {
      return refused("Authorization: event kind must be " + KIND + ", got " + e.kind());
    }
    if (Math.abs(e.createdAt() - nowSeconds) > WINDOW_SECONDS) {
      return refused("Authorization: created_at is more than " + WINDOW_SECONDS + " seconds from the relay's clock");
    }
    String u = tag(e, "u");
    if (u == null) {
      return refused("Authorization: no \"u\" tag");
    }
    String asRelay = asRelayUrl(u);
    if (asRelay == null || !asRelay.equals(relayUrl)) {
      return refused("Authorization: \"u\" tag " + u + " is not this relay's URL " + httpForm(relayUrl));
    }
    String m = tag(e, "method");
    if (m == null || !m.equalsIgnoreCase(method)) {
      return refused("Authorization: \"method\" tag must be " + method);
    }
    String payload = tag(e, "payload");
    if (payload == null) {
      return refused("Authorization: no \"payload\" tag (NIP-86 requires the SHA-256 of the body)");
    }
    if (!payload.toLowerCase(Locale.ROOT).equals(sha256Hex(body))) {
      return refused("Authorization: \"payload\" tag is not the SHA-256 of the request body");
    }
    return new Checked.Passed(e);
  }

  /** Null when the event's id and BIP-340 signature hold, else why not. CPU work: call it off the event loop. */
  public static String signatureProblem(NostrEvent e) {
    String reason = new dev.cairn.sig.Bip340Verifier().check(e);
    return reason == null ? null : "Authorization: " + reason;
  }

  /** {@code http(s)://...} in the {@link RelayUrl} form of the same address, or null when it is not http(s). */
  static String asRelayUrl(String url) {
    String t = url.trim();
    String lower = t.toLowerCase(Locale.ROOT);
    if (lower.startsWith("https://")) {
      return RelayUrl.normalize("wss://" + t.substring(8));
    }
    if (lower.startsWith("http://")) {
      return RelayUrl.normalize("ws://" + t.substring(7));
    }
    return null;
  }

  /** The http(s) spelling of a relay URL, for messages. */
  public static String httpForm(String relayUrl) {
    return relayUrl.startsWith("wss://") ? "https://" + relayUrl.substring(6)
        : relayUrl.startsWith("ws://") ? "http://" + relayUrl.substring(5) : relayUrl;
  }

  static String sha256Hex(byte[] body) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    } catch (NoSuchAlgorithmException x) {
      throw new IllegalStateException("SHA-256 is always there", x);
    }
  }

  private static String tag(NostrEvent e, String name) {
    for (List<String> t : e.tags()) {
      if (t.size() >= 2 && t.get(0).equals(name)) {
        return t.get(1);
      }
    }
    return null;
  }

  private static Checked refused(String reason) {
    return new Checked.Refused(reason);
  }
}
