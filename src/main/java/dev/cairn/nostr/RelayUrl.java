package dev.cairn.nostr;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * A relay's WebSocket URL in the one form two spellings of it compare equal in (NIP-42's {@code relay}
 * tag against the URL the client connected to): scheme and host in lower case, no default port (443
 * for {@code wss}, 80 for {@code ws}), no trailing slash, no query or fragment.
 */
public final class RelayUrl {
  private RelayUrl() {}

  /** The normal form of {@code url}, or null when it is not a {@code ws://} or {@code wss://} URL. */
  public static String normalize(String url) {
    if (url == null) {
      return null;
    }
    URI u;
    try {
      u = new URI(url.trim());
    } catch (URISyntaxException e) {
      return null;
    }
    String scheme = u.getScheme() == null ? null : u.getScheme().toLowerCase(Locale.ROOT);
    if (!"ws".equals(scheme) && !"wss".equals(scheme) || u.getHost() == null || u.getRawUserInfo() != null) {
      return null;
    }
    int port = u.getPort();
    boolean defaultPort = port < 0 || port == ("wss".equals(scheme) ? 443 : 80);
    String path = u.getRawPath() == null ? "" : u.getRawPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return scheme + "://" + u.getHost().toLowerCase(Locale.ROOT) + (defaultPort ? "" : ":" + port) + path;
  }

  /** The scheme of a normalized URL ({@code ws} or {@code wss}). */
  public static String scheme(String normalized) {
    return normalized.substring(0, normalized.indexOf(':'));
  }
}
