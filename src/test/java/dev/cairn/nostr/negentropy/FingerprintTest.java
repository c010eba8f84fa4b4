package dev.cairn.nostr.negentropy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FingerprintTest {

  private static List<byte[]> ids(String field) {
    List<byte[]> out = new ArrayList<>();
    if (!field.equals("-")) {
      for (String id : field.split(",")) {
        out.add(VectorFiles.hex(id));
      }
    }
    return out;
  }

  @Test
  void accumulatorMatchesTheReferenceSumsAndFingerprints() {
    int checked = 0;
    for (String[] f : VectorFiles.lines("fingerprints.txt")) {
      List<byte[]> ids = ids(f[4]);
      assertEquals(Integer.parseInt(f[3]), ids.size());
      Accumulator acc = new Accumulator();
      ids.forEach(acc::add);
      assertEquals(f[2], NegentropyHex.encode(acc.sum()), "sum of " + ids.size());
      assertEquals(f[1], NegentropyHex.encode(acc.fingerprint(ids.size()).bytes()));
      checked++;
    }
    assertEquals(13, checked);
  }

  @Test
  void storageFingerprintsMatchTheReferenceWhateverTheInsertionOrder() {
    for (String[] f : VectorFiles.lines("fingerprints.txt")) {
      List<byte[]> ids = ids(f[4]);
      if (ids.size() > 1) { // repeated ids get distinct timestamps below
        VectorStorage.Builder b = VectorStorage.builder();
        for (int i = ids.size() - 1; i >= 0; i--) {
          b.add(i % 3, ids.get(i)); // sorted differently from the list: the sum commutes
        }
        VectorStorage s = b.build();
        assertEquals(f[1], NegentropyHex.encode(s.fingerprint(0, s.size()).bytes()));
      }
    }
  }

  @Test
  void aSumThatWrapsToZeroStillDiffersFromTheEmptySetByItsCount() {
    Accumulator acc = new Accumulator();
    acc.add(VectorFiles.hex("ff".repeat(32)));
    acc.add(VectorFiles.hex("01" + "00".repeat(31)));
    assertArrayEquals(new byte[32], acc.sum());
    assertNotEquals(new Accumulator().fingerprint(0), acc.fingerprint(2));
  }

  @Test
  void accumulatorsAddUp() {
    Accumulator a = new Accumulator();
    Accumulator b = new Accumulator();
    Accumulator all = new Accumulator();
    for (int i = 0; i < 50; i++) {
      byte[] id = TestSets.id(i);
      (i % 2 == 0 ? a : b).add(id);
      all.add(id);
    }
    a.add(b);
    assertArrayEquals(all.sum(), a.sum());
    a.reset();
    assertArrayEquals(new byte[32], a.sum());
  }

  @Test
  void fingerprintsCompareByValue() {
    byte[] bytes = VectorFiles.hex("00112233445566778899aabbccddeeff");
    Fingerprint fp = new Fingerprint(bytes);
    assertEquals(new Fingerprint(bytes.clone()), fp);
    assertEquals(true, fp.matches(VectorFiles.hex("ff" + "00112233445566778899aabbccddeeff"), 1));
  }
}
