package dev.cairn.nostr.negentropy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class VectorStorageTest {

  private static List<Item> randomItems(Random rnd, int n, int spread) {
    List<Item> items = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] id = new byte[32];
      rnd.nextBytes(id);
      if (rnd.nextInt(4) == 0 && !items.isEmpty()) {
        // share a long prefix with an earlier id, so prefix bounds get exercised
        byte[] other = items.get(rnd.nextInt(items.size())).id();
        System.arraycopy(other, 0, id, 0, 1 + rnd.nextInt(30));
      }
      items.add(new Item(rnd.nextInt(spread), id));
    }
    return items;
  }

  /** Only the three required methods: everything else comes from the interface defaults. */
  private record MinimalStorage(List<Item> sorted) implements NegentropyStorage {
    @Override
    public int size() {
      return sorted.size();
    }

    @Override
    public long timestamp(int index) {
      return sorted.get(index).timestamp();
    }

    @Override
    public void copyId(int index, byte[] dst, int off) {
      System.arraycopy(sorted.get(index).id(), 0, dst, off, 32);
    }
  }

  @Test
  void sortsByUnsignedTimestampThenIdBytes() {
    Random rnd = new Random(1);
    List<Item> items = randomItems(rnd, 5000, 50);
    items.add(new Item(-2L, TestSets.id(1))); // 2^64-2: last, not first
    items.add(new Item(Long.MIN_VALUE, TestSets.id(2)));
    VectorStorage storage = TestSets.storage(items);
    List<Item> expected = new ArrayList<>(items);
    Collections.sort(expected);
    assertEquals(expected.size(), storage.size());
    for (int i = 0; i < expected.size(); i++) {
      assertEquals(expected.get(i), storage.item(i));
    }
    assertEquals(-2L, storage.timestamp(storage.size() - 1));
  }

  @Test
  void keepsAlreadySortedInputAsIs() {
    List<Item> items = randomItems(new Random(2), 1000, 1000);
    Collections.sort(items);
    VectorStorage storage = TestSets.storage(items);
    for (int i = 0; i < items.size(); i++) {
      assertEquals(items.get(i), storage.item(i));
    }
  }

  @Test
  void reversesInputInDescendingOrder() {
    List<Item> items = randomItems(new Random(6), 1000, 30);
    Collections.sort(items, Collections.reverseOrder());
    VectorStorage storage = TestSets.storage(items);
    Collections.reverse(items);
    for (int i = 0; i < items.size(); i++) {
      assertEquals(items.get(i), storage.item(i));
    }
  }

  @Test
  void findLowerBoundAndFingerprintAgreeWithTheGenericDefaults() {
    Random rnd = new Random(3);
    List<Item> items = randomItems(rnd, 3000, 20);
    VectorStorage storage = TestSets.storage(items);
    Collections.sort(items);
    MinimalStorage reference = new MinimalStorage(items);
    for (int k = 0; k < 3000; k++) {
      Item probe = items.get(rnd.nextInt(items.size()));
      byte[] prefix = Arrays.copyOf(probe.id(), rnd.nextInt(33));
      if (prefix.length > 0 && rnd.nextBoolean()) {
        prefix[prefix.length - 1]++;
      }
      Bound bound = new Bound(probe.timestamp() + rnd.nextInt(3) - 1, prefix);
      int begin = rnd.nextInt(items.size() + 1);
      int end = begin + rnd.nextInt(items.size() - begin + 1);
      int expected = bruteForceLowerBound(items, begin, end, bound);
      assertEquals(expected, storage.findLowerBound(begin, end, bound), bound.toString());
      assertEquals(expected, reference.findLowerBound(begin, end, bound), bound.toString());
      assertEquals(reference.fingerprint(begin, end), storage.fingerprint(begin, end));
    }
    assertEquals(items.size(), storage.findLowerBound(0, items.size(), Bound.INFINITY));
    assertEquals(0, storage.findLowerBound(0, items.size(), Bound.ZERO));
  }

  private static int bruteForceLowerBound(List<Item> sorted, int begin, int end, Bound bound) {
    byte[] padded = Arrays.copyOf(bound.idPrefix(), 32);
    Item asItem = new Item(bound.timestamp(), padded);
    for (int i = begin; i < end; i++) {
      if (sorted.get(i).compareTo(asItem) >= 0) {
        return i;
      }
    }
    return end;
  }

  @Test
  void copiesAndIteratesRanges() {
    List<Item> items = randomItems(new Random(4), 100, 100);
    VectorStorage storage = TestSets.storage(items);
    Collections.sort(items);
    byte[] ids = new byte[10 * 32];
    storage.copyIds(20, 30, ids, 0);
    byte[] generic = new byte[10 * 32];
    new MinimalStorage(items).copyIds(20, 30, generic, 0);
    assertArrayEquals(generic, ids);
    assertArrayEquals(items.get(25).id(), Arrays.copyOfRange(ids, 5 * 32, 6 * 32));

    List<Integer> seen = new ArrayList<>();
    storage.iterate(
        10,
        100,
        (index, item) -> {
          assertEquals(items.get(index), item);
          seen.add(index);
          return index < 14;
        });
    assertEquals(List.of(10, 11, 12, 13, 14), seen);
  }

  @Test
  void refusesWhatTheProtocolCannotRepresent() {
    VectorStorage.Builder b = VectorStorage.builder();
    assertThrows(IllegalArgumentException.class, () -> b.add(1, new byte[31]));
    assertThrows(
        IllegalArgumentException.class, () -> b.add(Bound.INFINITE_TIMESTAMP, new byte[32]));
    assertThrows(IllegalArgumentException.class, () -> b.add(1, "zz".repeat(32)));
    b.add(5, TestSets.id(9)).add(5, TestSets.id(9));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::build);
    assertEquals(true, e.getMessage().startsWith("duplicate item: timestamp 5"));
    assertThrows(IllegalStateException.class, b::build);
  }

  @Test
  void theSameIdAtTwoTimestampsIsTwoItems() {
    VectorStorage s = VectorStorage.builder().add(5, TestSets.id(9)).add(6, TestSets.id(9)).build();
    assertEquals(2, s.size());
  }

  @Test
  void checksIndicesAndRanges() {
    VectorStorage s = TestSets.storage(randomItems(new Random(5), 10, 10));
    assertThrows(IndexOutOfBoundsException.class, () -> s.timestamp(10));
    assertThrows(IndexOutOfBoundsException.class, () -> s.copyId(-1, new byte[32], 0));
    assertThrows(IndexOutOfBoundsException.class, () -> s.fingerprint(5, 4));
    assertThrows(IndexOutOfBoundsException.class, () -> s.findLowerBound(0, 11, Bound.ZERO));
    assertEquals(new Accumulator().fingerprint(0), s.fingerprint(3, 3));
  }

  @Test
  void hexIdsReadEitherCase() {
    String hex = NegentropyHex.encode(TestSets.id(3));
    VectorStorage s = VectorStorage.builder().add(1, hex.toUpperCase()).build();
    assertEquals(hex, NegentropyHex.encode(s.item(0).id()));
    assertThrows(IllegalArgumentException.class, () -> NegentropyHex.decode("abc"));
  }
}
