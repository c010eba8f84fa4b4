package dev.cairn.policy;

import dev.cairn.config.PolicyConfig;
import dev.cairn.nostr.NostrEvent;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Refuses an event whose content was already published within the window: by the same author
 * (scope {@code pubkey}) or by anyone (scope {@code global}). Content is compared after lower
 * casing and collapsing white space, as 64 bits of its SHA-256 (with the author for scope pubkey),
 * so memory is about 100 bytes per remembered content and at most {@code max_entries} of them,
 * oldest forgotten first. The same event sent again is not a duplicate of itself: storage answers
 * it with {@code duplicate:} as usual. Only events that pass every other rule are remembered.
 */
final class DuplicateContent {
  private final PolicyConfig.Duplicates settings;
  private final long windowNanos;
  private final MessageDigest sha256;
  /** Content hash -> first event with it; insertion order is expiry order (one window for all). */
  private final LinkedHashMap<Long, Seen> seen = new LinkedHashMap<>();

  private record Seen(long eventBits, long expiresAt) {}

  DuplicateContent(PolicyConfig.Duplicates settings) {
    this.settings = settings;
    this.windowNanos = settings.window().toNanos();
    try {
      this.sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  PolicyConfig.Duplicates settings() {
    return settings;
  }

  int size() {
    return seen.size();
  }

  /** A rejection when the content is a repeat within the window; otherwise remembers it and passes. */
  Verdict check(NostrEvent e, long nowNanos) {
    if (!settings.kinds().isEmpty() && !settings.kinds().contains(e.kind())) {
      return null;
    }
    String text = normalize(e.content());
    if (text.length() < settings.minLength()) {
      return null;
    }
    expire(nowNanos);
    long key = hash(settings.scope() == PolicyConfig.Scope.PUBKEY ? e.pubkey() : "", text);
    long bits = Long.parseUnsignedLong(e.id().substring(0, 16), 16);
    Seen s = seen.get(key);
    if (s != null) {
      if (s.eventBits() == bits) {
        return null; // the same event again: storage decides (duplicate:)
      }
      return Verdict.reject("duplicate_content", "blocked: duplicate content, "
          + (settings.scope() == PolicyConfig.Scope.PUBKEY ? "you already published it" : "already published")
          + " within the last " + human(settings.window()));
    }
    seen.put(key, new Seen(bits, nowNanos + windowNanos));
    if (seen.size() > settings.maxEntries()) {
      Iterator<Long> it = seen.keySet().iterator();
      it.next();
      it.remove();
    }
    return null;
  }

  private void expire(long nowNanos) {
    Iterator<Map.Entry<Long, Seen>> it = seen.entrySet().iterator();
    while (it.hasNext()) {
      if (it.next().getValue().expiresAt() - nowNanos > 0) {
        return;
      }
      it.remove();
    }
  }

  /** Lower case, white space runs as one space, trimmed. */
  static String normalize(String content) {
    StringBuilder sb = new StringBuilder(content.length());
    boolean space = false;
    for (int i = 0; i < content.length(); i++) {
      char c = content.charAt(i);
      if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
        space = sb.length() > 0;
      } else {
        if (space) {
          sb.append(' ');
          space = false;
        }
        sb.append(c);
      }
    }
    return sb.toString().toLowerCase(Locale.ROOT);
  }

  private long hash(String pubkey, String text) {
    sha256.reset();
    sha256.update(pubkey.getBytes(StandardCharsets.US_ASCII));
    sha256.update((byte) 0);
    byte[] d = sha256.digest(text.getBytes(StandardCharsets.UTF_8));
    long h = 0;
    for (int i = 0; i < 8; i++) {
      h = (h << 8) | (d[i] & 0xff);
    }
    return h;
  }

  static String human(Duration d) {
    long s = d.toSeconds();
    if (s > 0 && s % 86400 == 0) {
      return s / 86400 + "d";
    }
    if (s > 0 && s % 3600 == 0) {
      return s / 3600 + "h";
    }
    if (s > 0 && s % 60 == 0) {
      return s / 60 + "m";
    }
    return s > 0 ? s + "s" : d.toMillis() + "ms";
  }
}
