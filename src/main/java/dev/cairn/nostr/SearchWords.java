package dev.cairn.nostr;

import java.util.ArrayList;
import java.util.List;

/**
 * The words of NIP-50 text, cut where SQLite's FTS5 {@code unicode61} tokenizer cuts the content it
 * indexes: a word is a run of letters and numbers (its token characters), anything else separates
 * words, marks included ({@code unicode61} cuts a Devanagari word at its vowel signs, so a search does
 * too). "Banana-split" is the two words "banana" and "split" in a note and in a search alike. A search
 * word is therefore always one token of the index, which keeps no positions and would refuse a phrase.
 * Case and accents are left to the store (the tokenizer folds both; MySQL lower-cases, its collation
 * ignores accents).
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

  private static void addWords(String text, List<String> out) {
    int start = -1;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      if (isWordChar(cp)) {
        if (start < 0) {
          start = i;
        }
      } else if (start >= 0) {
        out.add(text.substring(start, i));
        start = -1;
      }
      i += Character.charCount(cp);
    }
    if (start >= 0) {
      out.add(text.substring(start));
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
