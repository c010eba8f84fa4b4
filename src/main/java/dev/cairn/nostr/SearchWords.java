package dev.cairn.nostr;

import java.util.ArrayList;
import java.util.List;

/**
 * The words of NIP-50 text, the one definition of a word for the index and for a search: a word is a run
 * of letters and numbers (and private-use characters, as SQLite's FTS5 {@code unicode61} tokenizer
 * has it), anything else separates words, marks included ({@code unicode61} cuts a Devanagari word at
 * its vowel signs, so a search does too). "Banana-split" is the two words "banana" and "split" in a note
 * and in a search alike. The SQLite index is given the content with every other separator made a space
 * ({@link #forIndex}), so a character its tokenizer's Unicode 6.1 tables do not know (an emoji such as
 * U+1FAA8 glued to "rock") cannot join a word there and not here. A search word is therefore always one
 * token of the index, which keeps no positions and would refuse a phrase. Case and accents are left to
 * the store (the tokenizer folds both; MySQL lower-cases, its collation ignores accents).
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
   * {@code text} for the SQLite index: every character that separates words and is not ASCII replaced by
   * a space, so that the tokenizer cuts where {@link #ofText} does (on ASCII the two agree: only letters
   * and digits make words). The text itself when there is none: no copy.
   */
  public static String forIndex(String text) {
    char[] out = null;
    for (int i = 0; i < text.length(); ) {
      char c = text.charAt(i);
      if (c < 0x80) {
        i++;
        continue;
      }
      int cp = text.codePointAt(i);
      int n = Character.charCount(cp);
      if (!isWordChar(cp)) {
        if (out == null) {
          out = text.toCharArray();
        }
        out[i] = ' ';
        if (n == 2) {
          out[i + 1] = ' ';
        }
      }
      i += n;
    }
    return out == null ? text : new String(out);
  }

  /**
   * Whether {@code text} holds a word at all: text without one (a reaction's "+", an emoji alone) can never
   * match a search, so the index need not hold it.
   */
  public static boolean hasWord(String text) {
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      if (isWordChar(cp)) {
        return true;
      }
      i += Character.charCount(cp);
    }
    return false;
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
