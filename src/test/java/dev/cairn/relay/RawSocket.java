package dev.cairn.relay;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A hostile client at the TCP level: it upgrades to a WebSocket (or opens an SSE stream) with a tiny
 * receive buffer, writes frames byte for byte as it likes, and then may simply stop reading. Only
 * {@link #readToEof} tells whether the server really cut the TCP connection.
 */
public final class RawSocket implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private RawSocket(int port, int receiveBuffer) throws IOException {
    socket = new Socket();
    socket.setReceiveBufferSize(receiveBuffer); // before connect: the window the server may fill
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    in = socket.getInputStream();
    out = socket.getOutputStream();
  }

  /** A WebSocket upgraded on {@code path}; the 101 response is read, nothing after it. */
  public static RawSocket webSocket(int port, String path) throws IOException {
    RawSocket s = new RawSocket(port, 4096);
    String key = Base64.getEncoder().encodeToString(new byte[16]);
    s.out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUpgrade: websocket\r\n"
        + "Connection: Upgrade\r\nSec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    String head = s.readHead();
    if (!head.startsWith("HTTP/1.1 101")) {
      throw new IOException("no upgrade: " + head);
    }
    return s;
  }

  /** An SSE stream on {@code path}; the response head is read, nothing after it. */
  public static RawSocket eventStream(int port, String path) throws IOException {
    RawSocket s = new RawSocket(port, 4096);
    s.out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAccept: text/event-stream\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    String head = s.readHead();
    if (!head.startsWith("HTTP/1.1 200")) {
      throw new IOException("no stream: " + head);
    }
    return s;
  }

  private String readHead() throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    socket.setSoTimeout(10_000);
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed during the handshake: " + head);
      }
      head.write(b);
      byte[] h = head.toByteArray();
      int n = h.length;
      if (n >= 4 && h[n - 4] == '\r' && h[n - 3] == '\n' && h[n - 2] == '\r' && h[n - 1] == '\n') {
        return head.toString(StandardCharsets.US_ASCII);
      }
    }
  }

  /** A masked text message in one frame. */
  public void sendText(String text) throws IOException {
    sendFrame(0x1, true, text.getBytes(StandardCharsets.UTF_8));
  }

  /** One masked frame: opcode 0x1 text, 0x0 continuation. */
  public void sendFrame(int opcode, boolean fin, byte[] payload) throws IOException {
    ByteArrayOutputStream f = new ByteArrayOutputStream(payload.length + 14);
    f.write((fin ? 0x80 : 0) | opcode);
    if (payload.length < 126) {
      f.write(0x80 | payload.length);
    } else if (payload.length < 65536) {
      f.write(0x80 | 126);
      f.write(payload.length >>> 8);
      f.write(payload.length);
    } else {
      f.write(0x80 | 127);
      for (int i = 7; i >= 0; i--) {
        f.write((int) ((long) payload.length >>> (8 * i)));
      }
    }
    byte[] mask = new byte[4];
    ThreadLocalRandom.current().nextBytes(mask);
    f.write(mask);
    for (int i = 0; i < payload.length; i++) {
      f.write(payload[i] ^ mask[i & 3]);
    }
    out.write(f.toByteArray());
    out.flush();
  }

  /**
   * Reads and discards until the server closes the TCP connection; returns the bytes read, or -1 when
   * the connection is still open after {@code timeoutMillis} (a close frame alone does not count).
   */
  public long readToEof(long timeoutMillis) throws IOException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    byte[] buf = new byte[65536];
    long total = 0;
    while (true) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) {
        return -1;
      }
      socket.setSoTimeout((int) Math.max(1, left));
      try {
        int n = in.read(buf);
        if (n < 0) {
          return total;
        }
        total += n;
      } catch (SocketTimeoutException open) {
        return -1;
      } catch (IOException reset) {
        return total; // reset by the server: gone as well
      }
    }
  }

  /**
   * Reads slowly (4 KB, then {@code pauseMillis}) until the server closes the TCP connection; returns
   * the last 1 KB read (where a close frame sent before the end is), or null when the connection is
   * still open after {@code timeoutMillis}.
   */
  public byte[] readSlowlyToEof(long pauseMillis, long timeoutMillis) throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    byte[] buf = new byte[4096];
    byte[] tail = new byte[0];
    while (System.currentTimeMillis() < deadline) {
      socket.setSoTimeout((int) Math.max(1, deadline - System.currentTimeMillis()));
      int n;
      try {
        n = in.read(buf);
      } catch (SocketTimeoutException open) {
        return null;
      }
      if (n < 0) {
        return tail;
      }
      byte[] next = new byte[Math.min(1024, tail.length + n)];
      int fromTail = next.length - n > 0 ? next.length - n : 0;
      System.arraycopy(tail, tail.length - fromTail, next, 0, fromTail);
      System.arraycopy(buf, n - (next.length - fromTail), next, fromTail, next.length - fromTail);
      tail = next;
      Thread.sleep(pauseMillis);
    }
    return null;
  }

  /**
   * Reads the next server message (one unfragmented, unmasked text frame, as the relay sends them) and
   * returns its text; null at the end of the stream.
   */
  public String readTextMessage(long timeoutMillis) throws IOException {
    socket.setSoTimeout((int) timeoutMillis);
    int b0 = in.read();
    if (b0 < 0) {
      return null;
    }
    long len = readFully(1)[0] & 0x7f;
    if (len == 126) {
      byte[] l = readFully(2);
      len = ((l[0] & 0xff) << 8) | (l[1] & 0xff);
    } else if (len == 127) {
      len = java.nio.ByteBuffer.wrap(readFully(8)).getLong();
    }
    byte[] payload = readFully((int) len);
    if ((b0 & 0x0f) != 0x1 || (b0 & 0x80) == 0) {
      throw new IOException("not a whole text frame: opcode " + (b0 & 0x0f) + ", fin " + ((b0 & 0x80) != 0));
    }
    return new String(payload, StandardCharsets.UTF_8);
  }

  private byte[] readFully(int n) throws IOException {
    byte[] b = new byte[n];
    for (int off = 0; off < n; ) {
      int r = in.read(b, off, n - off);
      if (r < 0) {
        throw new IOException("closed inside a frame");
      }
      off += r;
    }
    return b;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
