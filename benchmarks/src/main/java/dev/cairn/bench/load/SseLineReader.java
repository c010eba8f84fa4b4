package dev.cairn.bench.load;

import java.io.IOException;
import java.io.InputStream;
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
      for (int i = pos; i < limit; i++) {
        if (buf[i] == '\n') {
          start = pos;
          end = i > pos && buf[i - 1] == '\r' ? i - 1 : i;
          pos = i + 1;
          return true;
        }
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

  /** The 64-hex value of the first {@code "id"} key in the line, or null. */
  String eventId() {
    for (int i = start; i + 4 <= end; i++) {
      if (buf[i] == '"' && buf[i + 1] == 'i' && buf[i + 2] == 'd' && buf[i + 3] == '"') {
        int j = i + 4;
        while (j < end && buf[j] == ' ') j++;
        if (j < end && buf[j] == ':') {
          j++;
          while (j < end && buf[j] == ' ') j++;
          if (j + 65 < end && buf[j] == '"') {
            return new String(buf, j + 1, 64, StandardCharsets.US_ASCII);
          }
        }
      }
    }
    return null;
  }
}
