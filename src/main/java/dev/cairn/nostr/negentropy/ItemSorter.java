package dev.cairn.nostr.negentropy;

import java.util.Arrays;

/**
 * Sorts parallel timestamp and packed-id arrays by (unsigned timestamp, id) without an object per
 * item: a bottom-up merge sort of an index permutation, then one gather pass. O(n log n) even on
 * adversarial input.
 */
final class ItemSorter {
  private static final int ID = Negentropy.ID_SIZE;

  private ItemSorter() {}

  /**
   * Sorts the first {@code n} items in place: O(n) when they already are in order, or in exactly
   * the reverse order (a database query ordered by {@code created_at DESC, id DESC}, Nostr's usual
   * order), else a merge sort.
   */
  static void sort(long[] timestamps, byte[] ids, int n) {
    if (isOrdered(timestamps, ids, n, 1)) {
      return;
    }
    if (isOrdered(timestamps, ids, n, -1)) {
      reverse(timestamps, ids, n);
      return;
    }
    mergeSort(timestamps, ids, n);
  }

  /** True when no neighbour pair compares opposite to {@code direction} (1: ascending). */
  private static boolean isOrdered(long[] timestamps, byte[] ids, int n, int direction) {
    for (int i = 1; i < n; i++) {
      if (compare(timestamps, ids, i - 1, i) * direction > 0) {
        return false;
      }
    }
    return true;
  }

  private static void reverse(long[] timestamps, byte[] ids, int n) {
    byte[] tmp = new byte[ID];
    for (int i = 0, j = n - 1; i < j; i++, j--) {
      long t = timestamps[i];
      timestamps[i] = timestamps[j];
      timestamps[j] = t;
      System.arraycopy(ids, i * ID, tmp, 0, ID);
      System.arraycopy(ids, j * ID, ids, i * ID, ID);
      System.arraycopy(tmp, 0, ids, j * ID, ID);
    }
  }

  private static void mergeSort(long[] timestamps, byte[] ids, int n) {
    int[] order = new int[n];
    int[] scratch = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    for (int width = 1; width < n; width *= 2) {
      for (int lo = 0; lo < n; lo += 2 * width) {
        int mid = Math.min(lo + width, n);
        int hi = Math.min(lo + 2 * width, n);
        merge(timestamps, ids, order, scratch, lo, mid, hi);
      }
      int[] t = order;
      order = scratch;
      scratch = t;
    }
    long[] sortedTs = new long[n];
    byte[] sortedIds = new byte[n * ID];
    for (int i = 0; i < n; i++) {
      sortedTs[i] = timestamps[order[i]];
      System.arraycopy(ids, order[i] * ID, sortedIds, i * ID, ID);
    }
    System.arraycopy(sortedTs, 0, timestamps, 0, n);
    System.arraycopy(sortedIds, 0, ids, 0, n * ID);
  }

  static int compare(long[] timestamps, byte[] ids, int a, int b) {
    int c = Long.compareUnsigned(timestamps[a], timestamps[b]);
    if (c != 0) {
      return c;
    }
    return Arrays.compareUnsigned(ids, a * ID, a * ID + ID, ids, b * ID, b * ID + ID);
  }

  private static void merge(long[] ts, byte[] ids, int[] src, int[] dst, int lo, int mid, int hi) {
    int i = lo;
    int j = mid;
    for (int k = lo; k < hi; k++) {
      if (i < mid && (j >= hi || compare(ts, ids, src[i], src[j]) <= 0)) {
        dst[k] = src[i++];
      } else {
        dst[k] = src[j++];
      }
    }
  }
}
