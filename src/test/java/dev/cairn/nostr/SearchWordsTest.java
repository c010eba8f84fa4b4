package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
  void theIndexIsGivenTheWordsJoinedBySpaces() {
    assertEquals("a ripe Banana split 0 ", SearchWords.joined("a ripe Banana-split, #0!"));
    // U+1FAA8 (Unicode 13) separates here, whatever the tokenizer's own tables know of it
    assertEquals("rock cairn ", SearchWords.joined("\ud83e\udea8rock\ncairn\ud83e\udea8"));
    assertEquals("", SearchWords.joined(" !?- \ud83e\udea8 "));
    assertEquals("", SearchWords.joined(""));
  }

  @Test
  void aSearchSkipsKeyValueExtensionsAndCutsTokensAsTextIsCut() {
    assertEquals(List.of("Banana", "split", "ripe"), SearchWords.ofSearch("Banana-split  ripe language:en"));
    assertEquals(List.of("a", "b", "c"), SearchWords.ofSearch("(a+b) \"c*\" ~ include:spam"));
    assertEquals(List.of(), SearchWords.ofSearch("   "));
  }
}
