package dev.cairn.bench.gen;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * NIP-01 canonical serialization, JSON string escaping and hex, written independently of the relay's
 * code so that the generator does not reproduce a relay bug.
 *
 * <p>Escaping: exactly {@code \n \" \\ \r \t \b \f}; every other character verbatim (UTF-8). The
 * generator never produces the other C0 controls, so the same escaping is also valid JSON and the
 * event line's strings are byte-identical to the canonical form.
 */
public final class Canon {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Canon() {}

  public static void escape(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\n' -> out.append("\\n");
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20) {
            throw new IllegalArgumentException("control character U+" + Integer.toHexString(c) + " not generated");
          }
          out.append(c);
        }
      }
    }
    out.append('"');
  }

  public static void tags(StringBuilder out, List<List<String>> tags) {
    out.append('[');
    for (int i = 0; i < tags.size(); i++) {
      if (i > 0) out.append(',');
      out.append('[');
      List<String> tag = tags.get(i);
      for (int j = 0; j < tag.size(); j++) {
        if (j > 0) out.append(',');
        escape(out, tag.get(j));
      }
      out.append(']');
    }
    out.append(']');
  }

  /** {@code [0,"pubkey",created_at,kind,tags,"content"]} as UTF-8. */
  public static byte[] serialize(String pubkey, long createdAt, int kind, List<List<String>> tags, String content) {
    StringBuilder sb = new StringBuilder(256 + content.length());
    sb.append("[0,\"").append(pubkey).append("\",").append(createdAt).append(',').append(kind).append(',');
    tags(sb, tags);
    sb.append(',');
    escape(sb, content);
    sb.append(']');
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The event as one JSON line, fields in NIP-01 order. */
  public static String eventJson(String id, String pubkey, long createdAt, int kind, List<List<String>> tags,
      String content, String sig) {
    StringBuilder sb = new StringBuilder(320 + content.length());
    sb.append("{\"id\":\"").append(id).append("\",\"pubkey\":\"").append(pubkey)
        .append("\",\"created_at\":").append(createdAt).append(",\"kind\":").append(kind).append(",\"tags\":");
    tags(sb, tags);
    sb.append(",\"content\":");
    escape(sb, content);
    sb.append(",\"sig\":\"").append(sig).append("\"}");
    return sb.toString();
  }

  public static byte[] sha256(byte[]... parts) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (byte[] p : parts) md.update(p);
      return md.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String hex(byte[] b) {
    char[] out = new char[b.length * 2];
    for (int i = 0; i < b.length; i++) {
      out[2 * i] = HEX[(b[i] >> 4) & 0xf];
      out[2 * i + 1] = HEX[b[i] & 0xf];
    }
    return new String(out);
  }

  public static byte[] unhex(String s) {
    if (s.length() % 2 != 0) throw new IllegalArgumentException("odd hex length");
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) {
      int hi = Character.digit(s.charAt(2 * i), 16);
      int lo = Character.digit(s.charAt(2 * i + 1), 16);
      if (hi < 0 || lo < 0) throw new IllegalArgumentException("not hex: " + s);
      out[i] = (byte) ((hi << 4) | lo);
    }
    return out;
  }

  public static byte[] longBytes(long v) {
    byte[] b = new byte[8];
    for (int i = 7; i >= 0; i--) {
      b[i] = (byte) v;
      v >>>= 8;
    }
    return b;
  }
}
