package dev.cairn.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A tenant's SSE bearer tokens ({@code tenants[].sse.tokens}), kept as SHA-256 digests only: a plain
 * entry is hashed at load, an entry {@code sha256:<64 hex>} is the digest of the token itself (so
 * the config file need not hold the secret: {@code printf %s "$TOKEN" | sha256sum}). A presented
 * token is hashed once and compared with every digest in constant time ({@link MessageDigest#isEqual},
 * no early exit), so the time an answer takes says nothing about how much of a token was right.
 */
public final class SseTokens {
  public static final String SHA256_PREFIX = "sha256:";
  private static final Pattern HEX64 = Pattern.compile("[0-9a-fA-F]{64}");
  public static final SseTokens NONE = new SseTokens(new byte[0][]);

  private final byte[][] digests;

  private SseTokens(byte[][] digests) {
    this.digests = digests;
  }

  /** From the config entries; a malformed {@code sha256:} entry is a config error (its value is not shown). */
  static SseTokens of(String tenant, List<String> entries) {
    byte[][] d = new byte[entries.size()][];
    for (int i = 0; i < d.length; i++) {
      String e = entries.get(i);
      if (e.regionMatches(true, 0, SHA256_PREFIX, 0, SHA256_PREFIX.length())) {
        String hex = e.substring(SHA256_PREFIX.length()).trim();
        if (!HEX64.matcher(hex).matches()) {
          throw new ConfigException("tenants[" + tenant + "].sse.tokens[" + i
              + "]: a hashed token is \"sha256:\" followed by 64 hex digits (the SHA-256 of the token's UTF-8 bytes)");
        }
        d[i] = HexFormat.of().parseHex(hex.toLowerCase(Locale.ROOT));
      } else {
        d[i] = digest(e);
      }
    }
    return new SseTokens(d);
  }

  /** No token configured: the feed is open. */
  public boolean isEmpty() {
    return digests.length == 0;
  }

  public int size() {
    return digests.length;
  }

  /** SHA-256 of the token's UTF-8 bytes: hash a presented token once, then ask {@link #matches(byte[])}. */
  public static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Whether a token whose {@link #digest} is {@code presented} is one of these; every entry is compared. */
  public boolean matches(byte[] presented) {
    boolean found = false;
    for (byte[] d : digests) {
      found |= MessageDigest.isEqual(d, presented);
    }
    return found;
  }

  public boolean matches(String token) {
    return matches(digest(token));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SseTokens t && java.util.Arrays.deepEquals(digests, t.digests);
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.deepHashCode(digests);
  }

  @Override
  public String toString() {
    return "[" + digests.length + " masked]";
  }
}
