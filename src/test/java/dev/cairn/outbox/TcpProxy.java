package dev.cairn.outbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy to NATS that the test can stop (NATS "goes down": connections cut, new ones refused) and
 * start again, or whose broker-to-client direction it can hold (NATS is slow to answer: PubAcks wait).
 */
final class TcpProxy implements AutoCloseable {
  private final int port;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile ServerSocket server;
  private volatile boolean holdReplies;

  TcpProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    try (ServerSocket s = new ServerSocket(0)) {
      this.port = s.getLocalPort();
    }
    start();
  }

  int port() {
    return port;
  }

  synchronized void start() throws IOException {
    ServerSocket s = new ServerSocket();
    s.setReuseAddress(true);
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    server = s;
    TcpProxy self = this;
    Thread accept = new Thread(() -> {
      while (!s.isClosed()) {
        try {
          Socket client = s.accept();
          Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
          synchronized (self) {
            if (s.isClosed()) { // stopped while this connection was being set up
              closeQuietly(client);
              closeQuietly(upstream);
              continue;
            }
            sockets.add(client);
            sockets.add(upstream);
          }
          pipe(client, upstream, false);
          pipe(upstream, client, true);
        } catch (IOException e) {
          // closed
        }
      }
    }, "tcp-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  private void pipe(Socket from, Socket to, boolean replies) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16384];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) >= 0) {
          while (replies && holdReplies && !to.isClosed()) {
            Thread.sleep(5);
          }
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // cut
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }, "tcp-proxy-pipe");
    t.setDaemon(true);
    t.start();
  }

  /** While held, what the broker sends (PubAcks, PONGs) waits in the proxy; released, it flows in order. */
  void holdReplies(boolean hold) {
    holdReplies = hold;
  }

  /** Refuses new connections and cuts every open one. */
  synchronized void stop() {
    closeQuietly(server);
    for (Socket s : sockets) {
      closeQuietly(s);
    }
    sockets.clear();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      if (c != null) {
        c.close();
      }
    } catch (Exception ignored) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    stop();
  }
}
