package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import org.junit.jupiter.api.Test;

class SearchWordsTest {
  @Test
  void wordsAreRunsOfLettersAndNumbers() {
    assertEquals(List.of("a", "ripe", "Banana", "split", "0"), SearchWords.ofText("a ripe Banana-split, #0!"));
    assertEquals(List.of("Café", "日本語", "x", "y", "²"), SearchWords.ofText("Café 日本語 x_y (²)"));
    // marks separate words, as in SQLite's unicode61 tokenizer: a Devanagari vowel sign, a combining accent
    assertEquals(List.of("\u0915", "\u091b", "cafe"), SearchWords.ofText("\u0915\u0941\u091b cafe\u0301"));
    assertEquals(List.of(), SearchWords.ofText(" !?- 🙂 "));
  }

  @Test
  void textHasAWordWhenItsWordsAreNotEmpty() {
    for (String text : List.of("", "+", " !?- \ud83d\ude4f ", "\u0301", "a", "+1", "\u65e5", "\ud83e\udea8rock", "\ue000")) {
      assertEquals(!SearchWords.ofText(text).isEmpty(), SearchWords.hasWord(text), text);
    }
  }

  @Test
  void theIndexIsGivenTheTextWithEveryOtherSeparatorASpace() {
    String ascii = "a ripe Banana-split, #0!";
    assertSame(ascii, SearchWords.forIndex(ascii)); // the tokenizer cuts ASCII as SearchWords does: no copy
    assertSame("Caf\u00e9 \u65e5\u672c", SearchWords.forIndex("Caf\u00e9 \u65e5\u672c"));
    // U+1FAA8 (Unicode 13, a surrogate pair) and a combining accent separate here, whatever the tokenizer's tables say
    assertEquals("  rock\ncairn  ", SearchWords.forIndex("\ud83e\udea8rock\ncairn\ud83e\udea8"));
    assertEquals("cafe    x", SearchWords.forIndex("cafe\u0301 \u2014 x")); // a mark and a dash
    assertEquals(SearchWords.ofText("\ud83e\udea8rock-\u0915\u0941\u091b \u00e9t\u00e9\ud83d\ude00"),
        SearchWords.ofText(SearchWords.forIndex("\ud83e\udea8rock-\u0915\u0941\u091b \u00e9t\u00e9\ud83d\ude00")));
  }

  @Test
  void aSearchSkipsKeyValueExtensionsAndCutsTokensAsTextIsCut() {
    assertEquals(List.of("Banana", "split", "ripe"), SearchWords.ofSearch("Banana-split  ripe language:en"));
    assertEquals(List.of("a", "b", "c"), SearchWords.ofSearch("(a+b) \"c*\" ~ include:spam"));
    assertEquals(List.of(), SearchWords.ofSearch("   "));
  }
}
