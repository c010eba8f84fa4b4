package dev.cairn.nostr;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What a {@code GET /v1/events} request asks of the change feed (CONTRACT section 4): the cursor
 * from {@code Last-Event-ID} or {@code ?since=} ({@code <epoch>:<seq>} or a bare {@code <seq>}) and
 * the {@code kinds} and {@code authors} narrowing. Pure, so the parser of these client-chosen strings
 * can be fuzzed apart from the HTTP listener.
 *
 * @param epoch the cursor's epoch (8 base32 letters), null when absent or a bare seq
 * @param seq the cursor's seq, null when there is no cursor
 */
public record FeedRequest(String epoch, Long seq, Set<Integer> kinds, Set<String> authors) {
  /** Client text echoed in an error is cut here: a header can be kilobytes long. */
  private static final int MAX_ECHO = 100;
  /** 18 digits always fit a long; a longer seq is no seq the feed ever hands out. */
  private static final int MAX_SEQ_DIGITS = 18;

  public FeedRequest {
    kinds = Set.copyOf(kinds);
    authors = Set.copyOf(authors);
  }

  /**
   * Parses the request's raw values, each null when absent. The header wins over {@code since}
   * unless it is empty. Refusals carry the 400 response's message.
   */
  public static FeedRequest parse(String lastEventId, String since, String kinds, String authors)
      throws FeedRequestException {
    String cursor = lastEventId;
    String source = "Last-Event-ID";
    if (cursor == null || cursor.isEmpty()) {
      cursor = since;
      source = "since";
    }
    String epoch = null;
    Long seq = null;
    if (cursor != null && !cursor.isEmpty()) {
      String c = cursor.trim();
      int colon = c.indexOf(':');
      if (colon >= 0) {
        epoch = c.substring(0, colon);
        if (!isEpoch(epoch)) {
          throw new FeedRequestException(malformedCursor(source, cursor));
        }
      }
      seq = digits(c.substring(colon + 1), MAX_SEQ_DIGITS);
      if (seq == null) {
        throw new FeedRequestException(malformedCursor(source, cursor));
      }
    }
    Set<Integer> kindSet = new LinkedHashSet<>();
    for (String k : list(kinds)) {
      Long kind = digits(k, 9); // leading zeros allowed, as Integer.parseInt did
      if (kind == null || kind > 65535) {
        throw new FeedRequestException("malformed kinds: \"" + echo(kinds) + "\" (expected e.g. 1,7)");
      }
      kindSet.add(kind.intValue());
    }
    Set<String> authorSet = new LinkedHashSet<>();
    for (String a : list(authors)) {
      if (!Hex.isLowerHex(a, 64)) {
        throw new FeedRequestException("malformed authors: \"" + echo(a) + "\" (expected 64 lowercase hex)");
      }
      authorSet.add(a);
    }
    return new FeedRequest(epoch, seq, kindSet, authorSet);
  }

  /** The cursor as a client sends it, null when none: parses back to the same cursor. */
  public String cursor() {
    if (seq == null) {
      return null;
    }
    return epoch == null ? Long.toString(seq) : epoch + ":" + seq;
  }

  // An epoch is 8 letters of RFC 4648 base32, lower case (what the feed writes into its ids).
  private static boolean isEpoch(String s) {
    if (s.length() != 8) {
      return false;
    }
    for (int i = 0; i < 8; i++) {
      char c = s.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= '2' && c <= '7')) {
        return false;
      }
    }
    return true;
  }

  /** 1 to {@code max} ASCII digits as a number, else null (no sign, no other script's digits). */
  private static Long digits(String s, int max) {
    int n = s.length();
    if (n == 0 || n > max) {
      return null;
    }
    long v = 0;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return null;
      }
      v = v * 10 + (c - '0');
    }
    return v;
  }

  private static String[] list(String param) {
    if (param == null || param.isBlank()) {
      return new String[0];
    }
    return java.util.Arrays.stream(param.split(",")).map(String::trim).filter(x -> !x.isEmpty())
        .toArray(String[]::new);
  }

  private static String malformedCursor(String source, String cursor) {
    return "malformed " + source + ": \"" + echo(cursor) + "\" (expected <epoch>:<seq> or <seq>)";
  }

  private static String echo(String s) {
    return s.length() <= MAX_ECHO ? s : s.substring(0, MAX_ECHO) + "...";
  }
}
