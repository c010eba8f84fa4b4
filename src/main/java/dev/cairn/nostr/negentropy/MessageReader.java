package dev.cairn.nostr.negentropy;

import java.util.Arrays;

/**
 * Cursor over one incoming message. Every read checks the remaining length first and fails with a
 * {@link NegentropyException} naming the offset, so a truncated or hostile message ends in a clear
 * error, never an out-of-bounds access, a huge allocation or a loop that does not advance.
 *
 * <p>Also holds the timestamp decoding state: bounds carry the difference from the previous bound's
 * timestamp, restarting from 0 in each message.
 */
final class MessageReader {
  private final byte[] buf;
  private int pos;
  private long lastTimestamp;

  MessageReader(byte[] buf) {
    this.buf = buf;
  }

  boolean hasRemaining() {
    return pos < buf.length;
  }

  int position() {
    return pos;
  }

  int readVersionByte() throws NegentropyException {
    require(1, "protocol version byte");
    return buf[pos++] & 0xff;
  }

  /**
   * An unsigned 64-bit varint. The reference implementations silently drop the high bits of a value
   * past 64 bits; no valid message has one, so this rejects it instead.
   */
  long readVarint() throws NegentropyException {
    int start = pos;
    long value = 0;
    while (true) {
      if (pos >= buf.length) {
        throw new NegentropyException("premature end of varint at offset " + start);
      }
      int b = buf[pos++] & 0xff;
      if ((value >>> 57) != 0) {
        throw new NegentropyException("varint exceeds 64 bits at offset " + start);
      }
      value = (value << 7) | (b & 0x7f);
      if ((b & 0x80) == 0) {
        return value;
      }
    }
  }

  /**
   * A bound timestamp: 0 is infinity, otherwise {@code 1 + delta} from the previous one. A delta
   * that overflows 64 bits saturates to infinity, as the reference C++ does.
   */
  long readTimestamp() throws NegentropyException {
    long encoded = readVarint();
    long timestamp = encoded == 0 ? Bound.INFINITE_TIMESTAMP : encoded - 1;
    timestamp += lastTimestamp;
    if (Long.compareUnsigned(timestamp, lastTimestamp) < 0) {
      timestamp = Bound.INFINITE_TIMESTAMP;
    }
    lastTimestamp = timestamp;
    return timestamp;
  }

  Bound readBound() throws NegentropyException {
    long timestamp = readTimestamp();
    int start = pos;
    long length = readVarint();
    if (length > Negentropy.ID_SIZE || length < 0) {
      throw new NegentropyException(
          "bound id prefix longer than 32 bytes ("
              + Long.toUnsignedString(length)
              + ") at offset "
              + start);
    }
    int len = (int) length;
    require(len, "bound id prefix");
    Bound bound = new Bound(timestamp, Arrays.copyOfRange(buf, pos, pos + len));
    pos += len;
    return bound;
  }

  Mode readMode() throws NegentropyException {
    int start = pos;
    long code = readVarint();
    Mode mode = Mode.of(code);
    if (mode == null) {
      throw new NegentropyException(
          "unexpected mode " + Long.toUnsignedString(code) + " at offset " + start);
    }
    return mode;
  }

  /** Skips {@code n} bytes that the caller reads in place; returns their offset. */
  int skip(int n, String what) throws NegentropyException {
    require(n, what);
    int start = pos;
    pos += n;
    return start;
  }

  /** Skips {@code count} ids read in place; returns the offset of the first. */
  int skipIds(long count) throws NegentropyException {
    if (count < 0 || count > (buf.length - pos) / Negentropy.ID_SIZE) {
      throw new NegentropyException(
          "message ends prematurely: id list of "
              + Long.toUnsignedString(count)
              + " ids at offset "
              + pos
              + ", message is "
              + buf.length);
    }
    return skip((int) count * Negentropy.ID_SIZE, "id list");
  }

  private void require(int n, String what) throws NegentropyException {
    if (buf.length - pos < n) {
      throw new NegentropyException(
          "message ends prematurely: "
              + what
              + " needs "
              + n
              + " bytes at offset "
              + pos
              + ", message is "
              + buf.length);
    }
  }
}
