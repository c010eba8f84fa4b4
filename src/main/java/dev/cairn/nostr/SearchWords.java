package dev.cairn.nostr;

import java.util.ArrayList;
import java.util.List;

/**
 * The words of NIP-50 text, the one definition of a word for the index and for a search: a word is a run
 * of letters and numbers (and private-use characters, as SQLite's FTS5 {@code unicode61} tokenizer
 * has it), anything else separates words, marks included ({@code unicode61} cuts a Devanagari word at
 * its vowel signs, so a search does too). "Banana-split" is the two words "banana" and "split" in a note
 * and in a search alike. The SQLite index is given the content already cut ({@link #joined}), so a
 * character its tokenizer's tables do not know (emoji newer than its Unicode 6.1: "🪨rock") cannot
 * glue itself to a word there and not here. A search word is therefore always one token of the index,
 * which keeps no positions and would refuse a phrase. Case and accents are left to the store (the
 * tokenizer folds both; MySQL lower-cases, its collation ignores accents).
 */
public final class SearchWords {
  private SearchWords() {}

  /**
   * The words a search string asks for, in order (every one must match): {@code key:value} extensions
   * (NIP-50's {@code language:en} and the like) are not words and are skipped.
   */
  public static List<String> ofSearch(String search) {
    List<String> out = new ArrayList<>();
    for (String token : search.split("\\s+")) {
      if (!token.isEmpty() && !token.contains(":")) {
        addWords(token, out);
      }
    }
    return out;
  }

  /** The words of indexed text (an event's content), in order. */
  public static List<String> ofText(String text) {
    List<String> out = new ArrayList<>();
    addWords(text, out);
    return out;
  }

  /**
   * The words of indexed text in order, each followed by one space (the last too), or "" when it has
   * none: what the SQLite index is given, one pass and one string.
   */
  public static String joined(String text) {
    StringBuilder out = new StringBuilder(text.length());
    cut(text, (from, to) -> out.append(text, from, to).append(' '));
    return out.toString();
  }

  private static void addWords(String text, List<String> out) {
    cut(text, (from, to) -> out.add(text.substring(from, to)));
  }

  /** A word of {@code text}: chars {@code from} (inclusive) to {@code to}. */
  private interface WordSink {
    void word(int from, int to);
  }

  private static void cut(String text, WordSink sink) {
    int start = -1;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      if (isWordChar(cp)) {
        if (start < 0) {
          start = i;
        }
      } else if (start >= 0) {
        sink.word(start, i);
        start = -1;
      }
      i += Character.charCount(cp);
    }
    if (start >= 0) {
      sink.word(start, text.length());
    }
  }

  /** Letters, numbers and private-use characters: {@code unicode61}'s default token characters. */
  static boolean isWordChar(int cp) {
    if (cp < 0x80) {
      return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
    }
    return switch (Character.getType(cp)) {
      case Character.UPPERCASE_LETTER, Character.LOWERCASE_LETTER, Character.TITLECASE_LETTER,
          Character.MODIFIER_LETTER, Character.OTHER_LETTER, Character.DECIMAL_DIGIT_NUMBER,
          Character.LETTER_NUMBER, Character.OTHER_NUMBER, Character.PRIVATE_USE -> true;
      default -> false;
    };
  }
}
