package dev.cairn.nostr.negentropy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * Review finding written into NegentropyFuzzTest's hex invariant (docs/fuzzing.md): NEG-OPEN/NEG-MSG
 * hex was decoded with Character.digit, which also reads fullwidth and other scripts' digits.
 */
class HexFindingsTest {
  @Test
  void fullwidthHex6100000200IsRefused() {
    // "６１００００02００": fullwidth digits read as 0x61 0x00 0x00 0x02 0x00 before
    NegentropyServer server = Negentropy.server(VectorStorage.builder().build());
    NegentropyException e = assertThrows(NegentropyException.class,
        () -> server.reconcileHex("\uFF16\uFF11\uFF10\uFF10\uFF10\uFF1002\uFF10\uFF10"));
    assertEquals("invalid hex message: not hex at offset 0", e.getMessage());
  }

  @Test
  void arabicIndicDigitsAreNotHex() {
    assertThrows(IllegalArgumentException.class, () -> NegentropyHex.decode("\u0666\u0661"));
  }

  @Test
  void asciiHexInEitherCase() {
    assertArrayEquals(new byte[] {(byte) 0xab, (byte) 0xcd, 0x09}, NegentropyHex.decode("abCD09"));
  }
}
