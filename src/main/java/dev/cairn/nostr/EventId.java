package dev.cairn.nostr;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * NIP-01 event id: SHA-256 of the UTF-8 canonical form {@code [0,pubkey,created_at,kind,tags,content]}.
 *
 * <p>Canonical strings use exactly the seven escapes {@code \n \" \\ \r \t \b \f}; every other
 * character, DEL and the other C0 controls included, is written verbatim. Clients built on
 * JSON.stringify (nostr-tools) write those other C0 controls as {@code &#92;u00xx} instead, so {@link
 * #verify} accepts that form too, but only when such a control is present.
 *
 * <p>The canonical form is UTF-8 encoded straight into a per-thread buffer that feeds a per-thread
 * digest: no intermediate String or byte[] per event.
 */
public final class EventId {
  private static final ThreadLocal<Hasher> HASHER = ThreadLocal.withInitial(Hasher::new);

  private EventId() {}

  /** The canonical id of {@code e}'s fields, lowercase hex (ignores {@code e.id()}). */
  public static String compute(NostrEvent e) {
    return compute(e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content());
  }

  public static String compute(
      String pubkey, long createdAt, int kind, List<List<String>> tags, String content) {
    return Hex.encode(hash(pubkey, createdAt, kind, tags, content));
  }

  /** The canonical id as 32 raw bytes (what a signature signs). */
  public static byte[] hash(
      String pubkey, long createdAt, int kind, List<List<String>> tags, String content) {
    Hasher h = HASHER.get();
    h.write(pubkey, createdAt, kind, tags, content, false);
    return h.digest();
  }

  /** True when {@code e.id()} is the id of its fields, in the canonical or the JSON.stringify form. */
  public static boolean verify(NostrEvent e) {
    Hasher h = HASHER.get();
    EventBytes b = e.bytes();
    if (b != null && b.canonicalSlices()) {
      // The stored JSON spells tags and content exactly as the canonical form does: hash its bytes.
      return Hex.equalsBytes(e.id(), h.fromSlices(e.pubkey(), e.createdAt(), e.kind(), b));
    }
    boolean sawControl = h.write(e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content(), false);
    if (Hex.equalsBytes(e.id(), h.digest())) {
      return true;
    }
    if (!sawControl) {
      return false;
    }
    h.write(e.pubkey(), e.createdAt(), e.kind(), e.tags(), e.content(), true);
    return Hex.equalsBytes(e.id(), h.digest());
  }

  /** One thread's digest and UTF-8 staging buffer; the buffer is flushed into the digest when full. */
  private static final class Hasher {
    private static final byte[] HEX = "0123456789abcdef".getBytes();
    private final MessageDigest md;
    private final byte[] buf = new byte[8192];
    private int pos;
    private boolean sawControl;

    Hasher() {
      try {
        md = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is mandatory in every JRE", e);
      }
    }

    /** Feeds the canonical form; returns whether a string held a C0 control with no short escape. */
    boolean write(
        String pubkey, long createdAt, int kind, List<List<String>> tags, String content,
        boolean escapeControls) {
      md.reset();
      pos = 0;
      sawControl = false;
      ascii("[0,");
      string(pubkey, escapeControls);
      put(',');
      ascii(Long.toString(createdAt));
      put(',');
      ascii(Integer.toString(kind));
      ascii(",[");
      for (int i = 0, n = tags.size(); i < n; i++) {
        if (i > 0) {
          put(',');
        }
        List<String> tag = tags.get(i);
        put('[');
        for (int j = 0, m = tag.size(); j < m; j++) {
          if (j > 0) {
            put(',');
          }
          string(tag.get(j), escapeControls);
        }
        put(']');
      }
      ascii("],");
      string(content, escapeControls);
      put(']');
      return sawControl;
    }

    /** The canonical hash from the JSON's own tags and content bytes (no control-character escapes in them). */
    byte[] fromSlices(String pubkey, long createdAt, int kind, EventBytes b) {
      md.reset();
      pos = 0;
      ascii("[0,\"");
      ascii(pubkey);
      ascii("\",");
      ascii(Long.toString(createdAt));
      put(',');
      ascii(Integer.toString(kind));
      put(',');
      md.update(buf, 0, pos);
      pos = 0;
      byte[] json = b.json();
      md.update(json, b.tagsFrom(), b.tagsTo() - b.tagsFrom());
      md.update((byte) ',');
      md.update(json, b.contentFrom(), b.contentTo() - b.contentFrom());
      md.update((byte) ']');
      return md.digest();
    }

    byte[] digest() {
      md.update(buf, 0, pos);
      pos = 0;
      return md.digest();
    }

    private void string(String s, boolean escapeControls) {
      put('"');
      for (int i = 0, len = s.length(); i < len; i++) {
        char c = s.charAt(i);
        if (c < 0x80) {
          switch (c) {
            case '"' -> esc('"');
            case '\\' -> esc('\\');
            case '\n' -> esc('n');
            case '\r' -> esc('r');
            case '\t' -> esc('t');
            case '\b' -> esc('b');
            case '\f' -> esc('f');
            default -> {
              if (c < 0x20) {
                sawControl = true;
                if (escapeControls) {
                  esc('u');
                  put('0');
                  put('0');
                  put((char) HEX[c >> 4]);
                  put((char) HEX[c & 0xf]);
                  continue;
                }
              }
              put(c);
            }
          }
        } else if (c < 0x800) {
          put((char) (0xc0 | (c >> 6)));
          put((char) (0x80 | (c & 0x3f)));
        } else if (Character.isHighSurrogate(c) && i + 1 < len
            && Character.isLowSurrogate(s.charAt(i + 1))) {
          int cp = Character.toCodePoint(c, s.charAt(++i));
          put((char) (0xf0 | (cp >> 18)));
          put((char) (0x80 | ((cp >> 12) & 0x3f)));
          put((char) (0x80 | ((cp >> 6) & 0x3f)));
          put((char) (0x80 | (cp & 0x3f)));
        } else if (Character.isSurrogate(c)) {
          put('?'); // lone surrogate: same replacement as String.getBytes(UTF_8); parsers reject these
        } else {
          put((char) (0xe0 | (c >> 12)));
          put((char) (0x80 | ((c >> 6) & 0x3f)));
          put((char) (0x80 | (c & 0x3f)));
        }
      }
      put('"');
    }

    private void esc(char c) {
      put('\\');
      put(c);
    }

    private void ascii(String s) {
      for (int i = 0, n = s.length(); i < n; i++) {
        put(s.charAt(i));
      }
    }

    private void put(char b) {
      if (pos == buf.length) {
        md.update(buf, 0, pos);
        pos = 0;
      }
      buf[pos++] = (byte) b;
    }
  }
}
