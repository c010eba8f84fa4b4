package dev.cairn.bench.load;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import javax.net.ssl.SSLSocketFactory;

/**
 * One {@code GET} of an SSE stream over a plain socket (TLS for https), its body de-chunked: the
 * replay benchmark reads a stream at 150+ MB/s, and java.net.http's body stream (a selector thread
 * handing buffers to the reader through a queue) kept both it and the relay half idle, taking turns.
 * HTTP/1.1 only, as the relay speaks it: a status line, headers, then a chunked or a plain body.
 */
final class SseSocket implements AutoCloseable {
  private final Socket socket;
  final int status;
  /** The response body, de-chunked. */
  final InputStream body;

  private SseSocket(Socket socket, int status, InputStream body) {
    this.socket = socket;
    this.status = status;
    this.body = body;
  }

  /** Sends {@code GET uri} with {@code Accept: text/event-stream}, reads the status and headers. */
  static SseSocket open(URI uri, int timeoutMillis) throws IOException {
    boolean tls = "https".equals(uri.getScheme());
    int port = uri.getPort() > 0 ? uri.getPort() : tls ? 443 : 80;
    Socket socket = tls ? SSLSocketFactory.getDefault().createSocket() : new Socket();
    try {
      socket.connect(new InetSocketAddress(uri.getHost(), port), timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
      OutputStream out = socket.getOutputStream();
      out.write(("GET " + target + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + port
          + "\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 20);
      String statusLine = line(in);
      String[] parts = statusLine.split(" ", 3);
      if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
        throw new IOException("not an HTTP/1.x response: " + statusLine);
      }
      int status = number(parts[1], 10, "status code in \"" + statusLine + "\"");
      boolean chunked = false;
      for (String h = line(in); !h.isEmpty(); h = line(in)) {
        String lower = h.toLowerCase(Locale.ROOT);
        if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
          chunked = true;
        }
      }
      return new SseSocket(socket, status, chunked ? new Dechunked(in) : in);
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** The longest head or chunk-size line read: a response that never ends one is refused. */
  static final int MAX_LINE = 8192;

  /** One CRLF-ended line of the head or a chunk size (ASCII), without its line break. */
  static String line(InputStream in) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new EOFException("the response ended inside a line of its head or a chunk size");
      }
      if (b.length() == MAX_LINE) {
        throw new IOException("a head or chunk-size line longer than " + MAX_LINE + " bytes");
      }
      if (c != '\r') {
        b.append((char) c);
      }
    }
    return b.toString();
  }

  /** {@code text} as a non-negative number in {@code radix}; an IOException naming {@code what} if it is not one. */
  private static int number(String text, int radix, String what) throws IOException {
    try {
      int n = Integer.parseInt(text, radix);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IOException("not a valid " + what);
  }

  /** A chunked body (RFC 9112 section 7.1) as the bytes it carries; ends at the last, empty chunk. */
  static final class Dechunked extends InputStream {
    private final InputStream in;
    private long left;
    private boolean first = true;
    private boolean ended;

    Dechunked(InputStream in) {
      this.in = in;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (ended) {
        return -1;
      }
      if (left == 0) {
        if (!first) {
          line(in); // the CRLF after the previous chunk's data
        }
        first = false;
        String size = line(in);
        int ext = size.indexOf(';');
        left = number((ext >= 0 ? size.substring(0, ext) : size).trim(), 16, "chunk size \"" + size + "\"");
        if (left == 0) {
          ended = true;
          return -1;
        }
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n < 0) {
        throw new EOFException("the response ended inside a chunk");
      }
      left -= n;
      return n;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }
  }
}
