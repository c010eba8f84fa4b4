package dev.cairn.nostr.negentropy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class VarintTest {

  @Test
  void matchesTheReferenceEncodings() throws Exception {
    int checked = 0;
    for (String[] f : VectorFiles.lines("varints.txt")) {
      long value = Long.parseUnsignedLong(f[0]);
      byte[] encoded = VectorFiles.hex(f[1]);
      assertArrayEquals(encoded, Varint.encode(value), f[0]);
      assertEquals(encoded.length, Varint.length(value), f[0]);
      assertEquals(value, Varint.decode(encoded), f[0]);
      checked++;
    }
    assertEquals(21, checked);
  }

  @Test
  void isMostSignificantDigitFirst() {
    assertArrayEquals(new byte[] {(byte) 0x81, 0x00}, Varint.encode(128));
    assertArrayEquals(new byte[] {0}, Varint.encode(0));
  }

  @Test
  void acceptsRedundantLeadingZeroDigitsLikeTheReference() throws Exception {
    assertEquals(1, Varint.decode(VectorFiles.hex("80808001")));
  }

  @Test
  void rejectsATruncatedVarint() {
    NegentropyException e =
        assertThrows(NegentropyException.class, () -> Varint.decode(VectorFiles.hex("8180")));
    assertTrue(e.getMessage().contains("premature end of varint"), e.getMessage());
    assertThrows(NegentropyException.class, () -> Varint.decode(new byte[0]));
  }

  @Test
  void rejectsAValueBeyond64Bits() {
    // 2^64: one more than the largest encodable value
    NegentropyException e =
        assertThrows(
            NegentropyException.class,
            () -> Varint.decode(VectorFiles.hex("82808080808080808000")));
    assertTrue(e.getMessage().contains("exceeds 64 bits"), e.getMessage());
  }

  @Test
  void rejectsTrailingBytes() {
    assertThrows(NegentropyException.class, () -> Varint.decode(VectorFiles.hex("0101")));
  }
}
