package dev.cairn.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Blocked words and phrases, matched case-insensitively against whole words of the content:
 * {@code spam} blocks "SPAM!" and "buy spam now" but not "spammer". A phrase ({@code "buy now"})
 * matches those words in a row, whatever punctuation or spacing sits between them. Letters, digits
 * and combining marks make words; everything else separates them (so text without spaces, as in
 * Chinese or Japanese, needs {@code block_regexes}).
 */
final class Words {
  private final Set<String> single = new HashSet<>();
  /** Normalized phrases with a space on each side, e.g. " buy now ". */
  private final List<String> phrases = new ArrayList<>();

  Words(List<String> words) {
    for (String w : words) {
      String n = normalize(w).trim();
      if (n.isEmpty()) {
        continue; // only punctuation: it can never match a word
      }
      if (n.indexOf(' ') < 0) {
        single.add(n);
      } else {
        phrases.add(" " + n + " ");
      }
    }
  }

  boolean isEmpty() {
    return single.isEmpty() && phrases.isEmpty();
  }

  /** The first blocked word or phrase in {@code content}, or null. */
  String find(String content) {
    if (isEmpty()) {
      return null;
    }
    String n = normalize(content);
    if (!single.isEmpty()) {
      int start = 1;
      for (int i = 1; i < n.length(); i++) {
        if (n.charAt(i) == ' ') {
          if (i > start) {
            String token = n.substring(start, i);
            if (single.contains(token)) {
              return token;
            }
          }
          start = i + 1;
        }
      }
    }
    for (String p : phrases) {
      if (n.contains(p)) {
        return p.trim();
      }
    }
    return null;
  }

  /** Lower case, every run of non-word characters one space, and a space at each end: " buy cheap pills ". */
  static String normalize(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append(' ');
    boolean space = true;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      if (Character.isLetterOrDigit(cp) || Character.getType(cp) == Character.NON_SPACING_MARK) {
        sb.appendCodePoint(Character.toLowerCase(cp));
        space = false;
      } else if (!space) {
        sb.append(' ');
        space = true;
      }
    }
    if (!space) {
      sb.append(' ');
    }
    return sb.toString();
  }
}
