package dev.cairn.bench.load;

import java.util.Collection;

/**
 * Event ids by their first 64 bits (16 hex digits) in an open-addressing table, for checking that a
 * replay carried every preloaded event: a frame is marked straight from the bytes of its line, with no
 * String and no hash of 64 characters per frame (a HashSet of ids was the SSE client's largest cost,
 * more than reading the stream). For random ids a 64-bit prefix names one event among millions.
 */
final class IdSet {
  private final long[] keys;
  private final boolean[] used;
  private final int mask;
  private final int size;

  IdSet(Collection<String> ids) {
    int capacity = Integer.highestOneBit(Math.max(8, ids.size() * 2)) * 2;
    keys = new long[capacity];
    used = new boolean[capacity];
    mask = capacity - 1;
    int n = 0;
    for (String id : ids) {
      long key = prefix(id);
      int i = home(key);
      while (used[i] && keys[i] != key) {
        i = (i + 1) & mask;
      }
      if (!used[i]) {
        used[i] = true;
        keys[i] = key;
        n++;
      }
    }
    size = n;
  }

  /** How many distinct ids the set holds. */
  int size() {
    return size;
  }

  /** A fresh record of which ids a replay saw. */
  Seen seen() {
    return new Seen();
  }

  /** The ids one replay saw. */
  final class Seen {
    private final boolean[] hit = new boolean[keys.length];
    private int count;

    /** Marks the id whose 64 hex digits start at {@code b[off]}, when it is one of the set's. */
    void mark(byte[] b, int off) {
      long key = prefix(b, off);
      int i = home(key);
      while (used[i]) {
        if (keys[i] == key) {
          if (!hit[i]) {
            hit[i] = true;
            count++;
          }
          return;
        }
        i = (i + 1) & mask;
      }
    }

    /** How many of the set's ids were marked. */
    int count() {
      return count;
    }
  }

  private int home(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h >>> 40) & mask;
  }

  static long prefix(String hex) {
    long v = 0;
    for (int i = 0; i < 16; i++) {
      v = (v << 4) | Character.digit(hex.charAt(i), 16);
    }
    return v;
  }

  static long prefix(byte[] b, int off) {
    long v = 0;
    for (int i = 0; i < 16; i++) {
      v = (v << 4) | Character.digit(b[off + i], 16);
    }
    return v;
  }
}
