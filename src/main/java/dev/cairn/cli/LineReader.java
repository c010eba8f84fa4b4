package dev.cairn.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * JSONL input as byte lines, without decoding: {@code \n} ends a line, a {@code \r} before it is
 * dropped (CRLF files), the last line may lack its newline. A line longer than {@code maxLine}
 * bytes is skipped to its end and returned as {@link #TOO_LONG}, so a broken file cannot take the
 * heap. Counts the bytes read, for the progress' ETA. Not thread-safe.
 */
final class LineReader {
  /** Returned for a line over the limit (its bytes are dropped). */
  static final byte[] TOO_LONG = new byte[0];

  private final InputStream in;
  private final int maxLine;
  private final byte[] buf = new byte[1 << 16];
  private int pos;
  private int end;
  private long consumed;
  private long lineNo;
  private boolean eof;
  private byte[] line = new byte[4096];

  LineReader(InputStream in, int maxLine) {
    this.in = in;
    this.maxLine = maxLine;
  }

  /** The next line, {@link #TOO_LONG}, or null at the end of the input. */
  byte[] next() throws IOException {
    int len = 0;
    boolean tooLong = false;
    boolean any = false;
    while (true) {
      if (pos == end) {
        if (eof || !fill()) {
          if (!any) {
            return null;
          }
          break; // a last line without its newline
        }
      }
      any = true;
      int nl = -1;
      for (int i = pos; i < end; i++) {
        if (buf[i] == '\n') {
          nl = i;
          break;
        }
      }
      int stop = nl < 0 ? end : nl;
      int n = stop - pos;
      if (!tooLong) {
        if (len + n > maxLine + 1) { // + 1: room for the \r a CRLF line ends with
          tooLong = true;
        } else {
          if (len + n > line.length) {
            line = Arrays.copyOf(line, Math.max(len + n, line.length * 2));
          }
          System.arraycopy(buf, pos, line, len, n);
          len += n;
        }
      }
      consumed += n;
      pos = stop;
      if (nl >= 0) {
        pos++;
        consumed++;
        break;
      }
    }
    lineNo++;
    if (tooLong) {
      return TOO_LONG;
    }
    if (len > 0 && line[len - 1] == '\r') {
      len--;
    }
    if (len > maxLine) {
      return TOO_LONG;
    }
    return Arrays.copyOf(line, len);
  }

  private boolean fill() throws IOException {
    int n = in.read(buf);
    if (n <= 0) {
      eof = true;
      pos = end = 0;
      return false;
    }
    pos = 0;
    end = n;
    return true;
  }

  /** Bytes of input consumed so far. */
  long consumed() {
    return consumed;
  }

  /** Lines returned so far (the number of the last one). */
  long lineNo() {
    return lineNo;
  }

  /** True when a line holds nothing but JSON whitespace. */
  static boolean blank(byte[] line) {
    for (byte b : line) {
      if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
        return false;
      }
    }
    return true;
  }
}
