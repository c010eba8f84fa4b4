package dev.cairn.bench.load;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Splits an SSE body into lines as byte ranges, without decoding them: the replay benchmark reads
 * 150 MB per 100k events, and a String per line (BufferedReader) made the client, not the relay,
 * the limit. After {@link #next()} the line is {@code buf[start, end)} (no line break).
 */
final class SseLineReader {
  private final InputStream in;
  byte[] buf = new byte[1 << 20];
  int start;
  int end;
  private int pos;
  private int limit;
  long bytes;

  SseLineReader(InputStream in) {
    this.in = in;
  }

  /** False at the end of the stream. */
  boolean next() throws IOException {
    while (true) {
      int i = lineBreak(buf, pos, limit);
      if (i >= 0) {
        start = pos;
        end = i > pos && buf[i - 1] == '\r' ? i - 1 : i;
        pos = i + 1;
        return true;
      }
      // no line break in what is buffered: keep the partial line, read more
      if (pos > 0) {
        System.arraycopy(buf, pos, buf, 0, limit - pos);
        limit -= pos;
        pos = 0;
      }
      if (limit == buf.length) {
        buf = Arrays.copyOf(buf, buf.length * 2);
      }
      int n = in.read(buf, limit, buf.length - limit);
      if (n < 0) {
        return false;
      }
      bytes += n;
      limit += n;
    }
  }

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;
  private static final long LFS = ONES * '\n';

  /**
   * The index of the first '\n' in {@code b[from, to)}, or -1; eight bytes per step (a data line is a
   * whole event, ~1.5 KB). (x - ONES) & ~x & HIGHS is non-zero exactly when some byte of x is zero.
   */
  static int lineBreak(byte[] b, int from, int to) {
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long x = (long) LONGS.get(b, i) ^ LFS;
      long zero = (x - ONES) & ~x & HIGHS;
      if (zero != 0) {
        return i + (Long.numberOfTrailingZeros(zero) >>> 3);
      }
    }
    for (; i < to; i++) {
      if (b[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  boolean startsWith(String prefix) {
    if (end - start < prefix.length()) return false;
    for (int i = 0; i < prefix.length(); i++) {
      if (buf[start + i] != prefix.charAt(i)) return false;
    }
    return true;
  }

  boolean isEmpty() {
    return end == start;
  }

  /** The line from {@code from} (an offset into it) as text; for the short {@code id:}/{@code event:} lines. */
  String text(int from) {
    return new String(buf, start + from, end - start - from, StandardCharsets.UTF_8).trim();
  }

  /** Where the 64-hex value of the first {@code "id"} key in the line starts in {@link #buf}, or -1. */
  int eventIdOffset() {
    for (int i = start; i + 4 <= end; i++) {
      if (buf[i] == '"' && buf[i + 1] == 'i' && buf[i + 2] == 'd' && buf[i + 3] == '"') {
        int j = i + 4;
        while (j < end && buf[j] == ' ') j++;
        if (j < end && buf[j] == ':') {
          j++;
          while (j < end && buf[j] == ' ') j++;
          if (j + 65 < end && buf[j] == '"') {
            return j + 1;
          }
        }
      }
    }
    return -1;
  }
}
