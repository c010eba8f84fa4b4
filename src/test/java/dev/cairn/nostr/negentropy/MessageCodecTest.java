package dev.cairn.nostr.negentropy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Timestamp delta encoding, infinity, and id-prefix bounds, as the spec's Bound section says. */
class MessageCodecTest {

  private static byte[] prefix(String hex) {
    return VectorFiles.hex(hex);
  }

  @Test
  void timestampsAreOnePlusTheDeltaFromThePreviousBoundAndInfinityIsZero() {
    MessageWriter out = new MessageWriter();
    out.writeTimestamp(100); // 1 + 100
    out.writeTimestamp(100); // 1 + 0
    out.writeTimestamp(228); // 1 + 128
    out.writeTimestamp(Bound.INFINITE_TIMESTAMP);
    assertEquals("65" + "01" + "8101" + "00", NegentropyHex.encode(out.toByteArray()));
  }

  @Test
  void decodingRestoresAbsoluteTimestamps() throws Exception {
    MessageReader in = new MessageReader(VectorFiles.hex("65018101" + "00"));
    assertEquals(100, in.readTimestamp());
    assertEquals(100, in.readTimestamp());
    assertEquals(228, in.readTimestamp());
    assertEquals(Bound.INFINITE_TIMESTAMP, in.readTimestamp());
    assertFalse(in.hasRemaining());
  }

  @Test
  void timestampsAreUnsigned() throws Exception {
    long big =
        Long.parseUnsignedLong("18446744073709551614"); // 2^64 - 2, the largest item timestamp
    MessageWriter out = new MessageWriter();
    out.writeTimestamp(big);
    byte[] bytes = out.toByteArray();
    assertEquals("81ffffffffffffffff7f", NegentropyHex.encode(bytes));
    assertEquals(big, new MessageReader(bytes).readTimestamp());
  }

  @Test
  void aDeltaPastTheLargestTimestampSaturatesToInfinity() throws Exception {
    // 2^64-2, then +4: overflows, read as infinity (the reference C++ does the same)
    MessageReader in = new MessageReader(VectorFiles.hex("81ffffffffffffffff7f" + "05" + "05"));
    assertEquals(Long.parseUnsignedLong("18446744073709551614"), in.readTimestamp());
    assertEquals(Bound.INFINITE_TIMESTAMP, in.readTimestamp());
    assertEquals(Bound.INFINITE_TIMESTAMP, in.readTimestamp()); // and stays there
  }

  @Test
  void boundsCarryTheirIdPrefix() throws Exception {
    MessageWriter out = new MessageWriter();
    out.writeBound(new Bound(5, prefix("")));
    out.writeBound(new Bound(5, prefix("ab12")));
    out.writeBound(Bound.INFINITY);
    String hex = NegentropyHex.encode(out.toByteArray());
    assertEquals("0600" + "0102ab12" + "0000", hex);

    MessageReader in = new MessageReader(VectorFiles.hex(hex));
    assertEquals(new Bound(5, prefix("")), in.readBound());
    assertEquals(new Bound(5, prefix("ab12")), in.readBound());
    assertEquals(Bound.INFINITY, in.readBound());
  }

  @Test
  void aBoundPrefixLongerThan32BytesIsRefused() {
    MessageReader in = new MessageReader(VectorFiles.hex("0021" + "00".repeat(33)));
    NegentropyException e = assertThrows(NegentropyException.class, in::readBound);
    assertTrue(e.getMessage().contains("longer than 32 bytes"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new Bound(1, new byte[33]));
  }

  @Test
  void minimalBoundsUseTheShortestSeparatingPrefix() {
    byte[] a = VectorFiles.hex("aabbcc" + "00".repeat(29));
    byte[] b = VectorFiles.hex("aabbdd" + "00".repeat(29));
    assertEquals(new Bound(7, prefix("")), Bounds.minimal(6, a, 7, b));
    assertEquals(new Bound(7, prefix("aabbdd")), Bounds.minimal(7, a, 7, b));
    byte[] c = VectorFiles.hex("00".repeat(31) + "01");
    byte[] d = VectorFiles.hex("00".repeat(31) + "02");
    assertArrayEquals(d, Bounds.minimal(7, c, 7, d).idPrefix());
  }

  @Test
  void itemsBelowABoundCompareOnlyThePrefixBytes() {
    byte[] id = VectorFiles.hex("aabb" + "ff".repeat(30));
    assertTrue(Bounds.itemBelow(7, id, 0, new Bound(8, prefix(""))));
    assertFalse(Bounds.itemBelow(7, id, 0, new Bound(7, prefix(""))));
    assertFalse(Bounds.itemBelow(7, id, 0, new Bound(7, prefix("aabb")))); // zero padding below
    assertTrue(Bounds.itemBelow(7, id, 0, new Bound(7, prefix("aabc"))));
    assertTrue(Bounds.itemBelow(-2L, id, 0, Bound.INFINITY));
  }
}
