package dev.cairn.nostr.negentropy;

import java.util.Arrays;

/**
 * Growable buffer for one outgoing message, with the timestamp encoding state: each bound's
 * timestamp is written as {@code 1 + delta} from the previous bound written, infinity as 0.
 *
 * <p>{@link #truncate} lets the reconciler drop the ranges it had started for a range that would
 * overflow the frame size limit, as the reference does by discarding its pending output.
 */
final class MessageWriter {
  private byte[] buf = new byte[256];
  private int size;
  private long lastTimestamp;

  int size() {
    return size;
  }

  void truncate(int newSize) {
    size = newSize;
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }

  void writeByte(int b) {
    ensure(1);
    buf[size++] = (byte) b;
  }

  void writeBytes(byte[] src, int off, int len) {
    ensure(len);
    System.arraycopy(src, off, buf, size, len);
    size += len;
  }

  void writeVarint(long value) {
    ensure(Varint.MAX_LENGTH);
    size += Varint.encodeInto(value, buf, size);
  }

  void writeMode(Mode mode) {
    writeVarint(mode.code());
  }

  void writeTimestamp(long timestamp) {
    if (timestamp == Bound.INFINITE_TIMESTAMP) {
      lastTimestamp = Bound.INFINITE_TIMESTAMP;
      writeVarint(0);
      return;
    }
    long delta = timestamp - lastTimestamp; // wraps like the reference's uint64
    lastTimestamp = timestamp;
    writeVarint(delta + 1);
  }

  void writeBound(Bound bound) {
    writeTimestamp(bound.timestamp());
    int len = bound.prefixLength();
    writeVarint(len);
    ensure(len);
    for (int i = 0; i < len; i++) {
      buf[size++] = bound.prefixByte(i);
    }
  }

  /** Appends the ids of items {@code [begin, end)} of {@code storage}. */
  void writeIds(NegentropyStorage storage, int begin, int end) {
    int len = Math.multiplyExact(end - begin, Negentropy.ID_SIZE);
    ensure(len);
    storage.copyIds(begin, end, buf, size);
    size += len;
  }

  private void ensure(int more) {
    if (buf.length - size < more) {
      long wanted = Math.max((long) buf.length * 2, (long) size + more);
      if (wanted > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("negentropy message larger than 2 GiB");
      }
      buf = Arrays.copyOf(buf, (int) wanted);
    }
  }
}
