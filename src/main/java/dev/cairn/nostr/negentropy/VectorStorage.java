package dev.cairn.nostr.negentropy;

import java.util.Arrays;

/**
 * Immutable sorted vector of items in two primitive arrays: a {@code long[]} of timestamps and one
 * {@code byte[]} holding every 32-byte id back to back. No object per item, so a million items cost
 * about 40 MB and fingerprints run over contiguous memory. Safe to share between threads and
 * sessions once built (for example a per-filter cache).
 *
 * <p>Built with {@link #builder}: the relay adds the (created_at, id) pairs matching a filter in
 * any order; {@link Builder#build} sorts them unless they already are sorted (an {@code ORDER BY
 * created_at, id} query makes that a single O(n) check).
 */
public final class VectorStorage implements NegentropyStorage {
  private static final int ID = Negentropy.ID_SIZE;

  private final long[] timestamps;
  private final byte[] ids;
  private final int size;

  private VectorStorage(long[] timestamps, byte[] ids, int size) {
    this.timestamps = timestamps;
    this.ids = ids;
    this.size = size;
  }

  public static Builder builder() {
    return new Builder(16);
  }

  /** A builder sized for {@code expectedItems}, to avoid regrowing while loading. */
  public static Builder builder(int expectedItems) {
    return new Builder(Math.max(expectedItems, 1));
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public long timestamp(int index) {
    checkIndex(index);
    return timestamps[index];
  }

  @Override
  public void copyId(int index, byte[] dst, int off) {
    checkIndex(index);
    System.arraycopy(ids, index * ID, dst, off, ID);
  }

  @Override
  public void copyIds(int begin, int end, byte[] dst, int off) {
    checkRange(begin, end);
    System.arraycopy(ids, begin * ID, dst, off, (end - begin) * ID);
  }

  @Override
  public int findLowerBound(int begin, int end, Bound bound) {
    checkRange(begin, end);
    int lo = begin;
    int hi = end;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (Bounds.itemBelow(timestamps[mid], ids, mid * ID, bound)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  @Override
  public Fingerprint fingerprint(int begin, int end) {
    checkRange(begin, end);
    Accumulator acc = new Accumulator();
    for (int off = begin * ID, stop = end * ID; off < stop; off += ID) {
      acc.add(ids, off);
    }
    return acc.fingerprint(end - begin);
  }

  private void checkIndex(int index) {
    if (index < 0 || index >= size) {
      throw new IndexOutOfBoundsException("item " + index + " of " + size);
    }
  }

  /**
   * Collects items, then sorts them once. Rejects what the protocol cannot represent: ids that are
   * not 32 bytes, the reserved infinity timestamp, and the same (timestamp, id) twice (the
   * reference refuses duplicates too: they would make the two sides' counts disagree forever).
   * Single use: {@link #build} hands the arrays over.
   */
  public static final class Builder {
    private long[] timestamps;
    private byte[] ids;
    private int size;
    private boolean built;

    private Builder(int capacity) {
      timestamps = new long[capacity];
      ids = new byte[Math.multiplyExact(capacity, ID)];
    }

    /** Adds one item; {@code timestamp} is unsigned and must not be {@code 2^64-1}. */
    public Builder add(long timestamp, byte[] id) {
      if (id.length != ID) {
        throw new IllegalArgumentException("id must be 32 bytes, got " + id.length);
      }
      return add(timestamp, id, 0);
    }

    /** Adds one item whose id is the 32 bytes of {@code buf} at {@code off}. */
    public Builder add(long timestamp, byte[] buf, int off) {
      if (built) {
        throw new IllegalStateException("already built");
      }
      if (timestamp == Bound.INFINITE_TIMESTAMP) {
        throw new IllegalArgumentException("timestamp 2^64-1 is reserved for infinity");
      }
      if (size == timestamps.length) {
        int capacity = Math.multiplyExact(size, 2);
        timestamps = Arrays.copyOf(timestamps, capacity);
        ids = Arrays.copyOf(ids, Math.multiplyExact(capacity, ID));
      }
      System.arraycopy(buf, off, ids, size * ID, ID);
      timestamps[size++] = timestamp;
      return this;
    }

    /** Adds one item with a hex id (64 hex characters), as ids come from Nostr events. */
    public Builder add(long timestamp, String hexId) {
      return add(timestamp, NegentropyHex.decode(hexId));
    }

    public Builder add(Item item) {
      return add(item.timestamp(), item.id());
    }

    public VectorStorage build() {
      if (built) {
        throw new IllegalStateException("already built");
      }
      built = true;
      ItemSorter.sort(timestamps, ids, size);
      for (int i = 1; i < size; i++) {
        if (ItemSorter.compare(timestamps, ids, i - 1, i) == 0) {
          throw new IllegalArgumentException(
              "duplicate item: timestamp "
                  + Long.toUnsignedString(timestamps[i])
                  + ", id "
                  + NegentropyHex.encode(Arrays.copyOfRange(ids, i * ID, i * ID + ID)));
        }
      }
      VectorStorage storage = new VectorStorage(timestamps, ids, size);
      timestamps = null;
      ids = null;
      return storage;
    }
  }
}
