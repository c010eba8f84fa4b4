package dev.cairn.nostr.negentropy;

/**
 * Read-only view of one side's items, sorted by (timestamp, id) with no duplicates, addressed by
 * index. The reconciler only ever asks for contiguous index ranges, so any sorted structure works;
 * {@link VectorStorage} is the in-memory one the relay fills from its database.
 *
 * <p>An implementation needs {@link #size}, {@link #timestamp} and {@link #copyId}; the other
 * methods have generic defaults built on those three, which an implementation overrides when it can
 * answer faster (binary search on raw arrays, cached partial sums).
 *
 * <p>Indices are {@code 0 <= begin <= end <= size()}; implementations throw {@link
 * IndexOutOfBoundsException} otherwise. Must not change while a session uses it.
 */
public interface NegentropyStorage {

  /** Number of items. */
  int size();

  /** Timestamp of item {@code index} (unsigned 64-bit). */
  long timestamp(int index);

  /** Copies the 32-byte id of item {@code index} into {@code dst} at {@code off}. */
  void copyId(int index, byte[] dst, int off);

  /**
   * Copies the ids of items {@code [begin, end)}, back to back, into {@code dst} at {@code off}.
   */
  default void copyIds(int begin, int end, byte[] dst, int off) {
    checkRange(begin, end);
    for (int i = begin; i < end; i++) {
      copyId(i, dst, off + (i - begin) * Negentropy.ID_SIZE);
    }
  }

  /** Item {@code index} as a value (allocates; the reconciler does not use it). */
  default Item item(int index) {
    byte[] id = new byte[Negentropy.ID_SIZE];
    copyId(index, id, 0);
    return new Item(timestamp(index), id);
  }

  /** Calls {@code visitor} for items {@code [begin, end)} in order until it returns false. */
  default void iterate(int begin, int end, ItemVisitor visitor) {
    checkRange(begin, end);
    for (int i = begin; i < end; i++) {
      if (!visitor.visit(i, item(i))) {
        return;
      }
    }
  }

  /**
   * Index of the first item in {@code [begin, end)} that is not below {@code bound} (items below a
   * bound: smaller timestamp, or equal timestamp and id bytes below the zero-padded prefix), or
   * {@code end} when there is none.
   */
  default int findLowerBound(int begin, int end, Bound bound) {
    checkRange(begin, end);
    byte[] id = new byte[Negentropy.ID_SIZE];
    int lo = begin;
    int hi = end;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      copyId(mid, id, 0);
      if (Bounds.itemBelow(timestamp(mid), id, 0, bound)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Fingerprint of the ids of items {@code [begin, end)}. */
  default Fingerprint fingerprint(int begin, int end) {
    checkRange(begin, end);
    Accumulator acc = new Accumulator();
    byte[] id = new byte[Negentropy.ID_SIZE];
    for (int i = begin; i < end; i++) {
      copyId(i, id, 0);
      acc.add(id, 0);
    }
    return acc.fingerprint(end - begin);
  }

  /** Throws unless {@code 0 <= begin <= end <= size()}. */
  default void checkRange(int begin, int end) {
    if (begin < 0 || begin > end || end > size()) {
      throw new IndexOutOfBoundsException(
          "bad range [" + begin + ", " + end + ") of " + size() + " items");
    }
  }

  /** Callback of {@link #iterate}. */
  @FunctionalInterface
  interface ItemVisitor {
    /** Returns false to stop. */
    boolean visit(int index, Item item);
  }
}
