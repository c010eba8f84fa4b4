package dev.cairn.bench.load;

/**
 * Cheap, tolerant reading of relay-to-client NIP-01 frames: the verb, the second element (sub id or
 * event id), and for OK frames the accepted flag and the message. Whitespace between tokens is allowed
 * (any relay's JSON); the rest of a frame (an EVENT's body) is not parsed.
 */
public final class Frames {
  private Frames() {}

  /** A parsed frame head. {@code second} is the sub id (EVENT, EOSE, CLOSED, COUNT) or event id (OK). */
  public record Head(String verb, String second, int end) {}

  /** Verdict of an OK frame for a benchmark: accepted (true), duplicate (true or false with "duplicate:"), or rejected. */
  public enum Verdict { ACCEPTED, DUPLICATE, REJECTED }

  public record Ok(String id, boolean accepted, String message) {
    public Verdict verdict() {
      if (message.startsWith("duplicate:")) return Verdict.DUPLICATE;
      return accepted ? Verdict.ACCEPTED : Verdict.REJECTED;
    }
  }

  /** Verb and second element, or null when the frame does not start like {@code ["VERB","x"}. */
  public static Head head(String f) {
    int[] pos = {0};
    skipWs(f, pos);
    if (pos[0] >= f.length() || f.charAt(pos[0]) != '[') return null;
    pos[0]++;
    String verb = readString(f, pos);
    if (verb == null) return null;
    skipWs(f, pos);
    if (pos[0] >= f.length() || f.charAt(pos[0]) != ',') return new Head(verb, null, pos[0]);
    pos[0]++;
    String second = readString(f, pos);
    return new Head(verb, second, pos[0]);
  }

  public static String verb(String f) {
    Head h = head(f);
    return h == null ? null : h.verb();
  }

  /** Parses {@code ["OK",id,bool,"msg"]}; null when the frame is not an OK frame. */
  public static Ok ok(String f) {
    Head h = head(f);
    if (h == null || !"OK".equals(h.verb()) || h.second() == null) return null;
    int[] pos = {h.end()};
    skipWs(f, pos);
    if (pos[0] >= f.length() || f.charAt(pos[0]) != ',') return null;
    pos[0]++;
    skipWs(f, pos);
    boolean accepted;
    if (f.startsWith("true", pos[0])) {
      accepted = true;
      pos[0] += 4;
    } else if (f.startsWith("false", pos[0])) {
      accepted = false;
      pos[0] += 5;
    } else {
      return null;
    }
    String msg = "";
    skipWs(f, pos);
    if (pos[0] < f.length() && f.charAt(pos[0]) == ',') {
      pos[0]++;
      String m = readString(f, pos);
      if (m != null) msg = m;
    }
    return new Ok(h.second(), accepted, msg);
  }

  /** "ok" when an OK frame says accepted or duplicate, otherwise a description (for Gatling checks). */
  public static String okVerdictText(String f) {
    Ok ok = ok(f);
    if (ok == null) return "not an OK frame: " + abbreviate(f);
    return ok.verdict() == Verdict.REJECTED ? "rejected: " + abbreviate(f) : "ok";
  }

  /**
   * The id of the event carried by an EVENT frame (the value of its "id" key), without parsing the
   * event. Inside JSON strings quotes are escaped, so the unescaped sequence {@code "id":"} can only be
   * the key itself.
   */
  public static String eventId(String f) {
    int from = 0;
    while (true) {
      int i = f.indexOf("\"id\"", from);
      if (i < 0) return null;
      int j = i + 4;
      while (j < f.length() && f.charAt(j) == ' ') j++;
      if (j < f.length() && f.charAt(j) == ':') {
        j++;
        while (j < f.length() && f.charAt(j) == ' ') j++;
        if (j + 65 < f.length() && f.charAt(j) == '"') {
          return f.substring(j + 1, j + 65);
        }
      }
      from = i + 4;
    }
  }

  public static String abbreviate(String s) {
    return s.length() <= 300 ? s : s.substring(0, 300) + "...";
  }

  private static void skipWs(String f, int[] pos) {
    while (pos[0] < f.length() && Character.isWhitespace(f.charAt(pos[0]))) pos[0]++;
  }

  private static String readString(String f, int[] pos) {
    skipWs(f, pos);
    if (pos[0] >= f.length() || f.charAt(pos[0]) != '"') return null;
    int i = pos[0] + 1;
    StringBuilder sb = null;
    int start = i;
    while (i < f.length()) {
      char c = f.charAt(i);
      if (c == '"') {
        pos[0] = i + 1;
        if (sb == null) return f.substring(start, i);
        sb.append(f, start, i);
        return sb.toString();
      }
      if (c == '\\' && i + 1 < f.length()) {
        if (sb == null) sb = new StringBuilder();
        sb.append(f, start, i);
        char e = f.charAt(i + 1);
        switch (e) {
          case 'n' -> sb.append('\n');
          case 't' -> sb.append('\t');
          case 'r' -> sb.append('\r');
          case 'b' -> sb.append('\b');
          case 'f' -> sb.append('\f');
          case 'u' -> {
            if (i + 5 < f.length()) {
              sb.append((char) Integer.parseInt(f.substring(i + 2, i + 6), 16));
              i += 4;
            }
          }
          default -> sb.append(e);
        }
        i += 2;
        start = i;
        continue;
      }
      i++;
    }
    return null;
  }
}
