package dev.cairn.scaleout;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy in front of MySQL/MariaDB that counts, per database, the connections opened and the
 * statements sent through it, by reading the client side of the MySQL protocol: the handshake response
 * names the connection's database, and every later packet that starts a command (sequence id 0) is a
 * command whose first byte says which (COM_QUERY, COM_STMT_PREPARE, COM_STMT_EXECUTE, ...). Bytes pass
 * through unchanged. Only for plain (non-TLS) connections, which is what the pods open here.
 */
final class MysqlCountingProxy implements AutoCloseable {
  private static final int CLIENT_CONNECT_WITH_DB = 0x08;
  private static final int CLIENT_SSL = 0x800;
  private static final int CLIENT_SECURE_CONNECTION = 0x8000;
  private static final int CLIENT_PLUGIN_AUTH_LENENC = 0x200000;
  private static final int COM_QUERY = 0x03;
  private static final int COM_STMT_PREPARE = 0x16;
  private static final int COM_STMT_EXECUTE = 0x17;

  /** What one database saw. */
  static final class Counts {
    final AtomicLong connections = new AtomicLong();
    final AtomicLong statements = new AtomicLong();
    final List<String> prepared = java.util.Collections.synchronizedList(new ArrayList<>());

    @Override
    public String toString() {
      return connections + " connections, " + statements + " statements";
    }
  }

  private final NetServer server;
  /**
   * One client for every upstream connection, held for the proxy's life: Vert.x 5 closes an unreachable
   * client's sockets (its Cleaner), which a client made per connection and dropped was.
   */
  private final NetClient upstream;
  private final Map<String, Counts> byDatabase = new ConcurrentHashMap<>();
  private final java.util.Set<NetSocket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean cut;

  private MysqlCountingProxy(Vertx vertx, NetServer server) {
    this.server = server;
    this.upstream = vertx.createNetClient();
  }

  static MysqlCountingProxy start(Vertx vertx, String host, int port) throws Exception {
    NetServer server = vertx.createNetServer();
    MysqlCountingProxy proxy = new MysqlCountingProxy(vertx, server);
    server.connectHandler(client -> proxy.accept(client, host, port));
    server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return proxy;
  }

  int port() {
    return server.actualPort();
  }

  /** Counts of {@code database} so far (zeros if it was never named). */
  Counts counts(String database) {
    return byDatabase.computeIfAbsent(database, d -> new Counts());
  }

  /** Forgets every count (the start of a measured window). */
  void reset() {
    byDatabase.clear();
  }

  /** MySQL "goes down": every proxied connection is closed and new ones are refused until {@link #restore}. */
  void cut() {
    cut = true;
    open.forEach(NetSocket::close);
  }

  void restore() {
    cut = false;
  }

  private void accept(NetSocket client, String host, int port) {
    if (cut) {
      client.close();
      return;
    }
    open.add(client);
    client.closeHandler(v -> open.remove(client));
    client.pause();
    upstream.connect(port, host).onComplete(ar -> {
      if (ar.failed()) {
        client.close();
        return;
      }
      NetSocket server = ar.result();
      ClientStream stream = new ClientStream();
      client.handler(b -> {
        stream.feed(b);
        server.write(b);
      });
      server.handler(client::write);
      client.closeHandler(v -> {
        open.remove(client);
        server.close();
      });
      server.closeHandler(v -> client.close());
      client.resume();
    });
  }

  /** Splits the client's bytes into MySQL packets and counts what they are. */
  private final class ClientStream {
    private Buffer pending = Buffer.buffer();
    /** The connection's database ("" when it named none); counts are looked up per command (reset-safe). */
    private String db;

    void feed(Buffer b) {
      pending.appendBuffer(b);
      int at = 0;
      while (pending.length() - at >= 4) {
        int len = (pending.getByte(at) & 0xff) | (pending.getByte(at + 1) & 0xff) << 8
            | (pending.getByte(at + 2) & 0xff) << 16;
        int seq = pending.getByte(at + 3) & 0xff;
        if (pending.length() - at - 4 < len) {
          break;
        }
        packet(pending.getBytes(at + 4, at + 4 + len), seq);
        at += 4 + len;
      }
      pending = pending.getBuffer(at, pending.length());
    }

    private void packet(byte[] p, int seq) {
      if (db == null) {
        String named = databaseOf(p);
        db = named == null ? "" : named;
        counts(db).connections.incrementAndGet();
        return;
      }
      if (seq != 0 || p.length == 0) {
        return; // the rest of an authentication exchange, or a continuation
      }
      int command = p[0] & 0xff;
      if (command == COM_QUERY || command == COM_STMT_EXECUTE || command == COM_STMT_PREPARE) {
        Counts counts = counts(db);
        counts.statements.incrementAndGet();
        if (command != COM_STMT_EXECUTE) {
          counts.prepared.add(new String(p, 1, p.length - 1, StandardCharsets.UTF_8));
        }
      }
    }
  }

  /** The database named in a HandshakeResponse41, or null. */
  static String databaseOf(byte[] p) {
    if (p.length < 32) {
      return null;
    }
    int caps = (p[0] & 0xff) | (p[1] & 0xff) << 8 | (p[2] & 0xff) << 16 | (p[3] & 0xff) << 24;
    if ((caps & CLIENT_SSL) != 0 && p.length == 32) {
      throw new IllegalStateException("TLS to MySQL: the counting proxy cannot read it");
    }
    int at = 32;
    while (at < p.length && p[at] != 0) {
      at++; // user name
    }
    at++;
    if ((caps & CLIENT_PLUGIN_AUTH_LENENC) != 0) {
      int first = p[at] & 0xff;
      long n;
      if (first < 0xfb) {
        n = first;
        at += 1;
      } else if (first == 0xfc) {
        n = (p[at + 1] & 0xff) | (p[at + 2] & 0xff) << 8;
        at += 3;
      } else {
        n = (p[at + 1] & 0xff) | (p[at + 2] & 0xff) << 8 | (p[at + 3] & 0xff) << 16;
        at += 4;
      }
      at += (int) n;
    } else if ((caps & CLIENT_SECURE_CONNECTION) != 0) {
      at += 1 + (p[at] & 0xff);
    } else {
      while (at < p.length && p[at] != 0) {
        at++;
      }
      at++;
    }
    if ((caps & CLIENT_CONNECT_WITH_DB) == 0 || at >= p.length) {
      return null;
    }
    int end = at;
    while (end < p.length && p[end] != 0) {
      end++;
    }
    return new String(p, at, end - at, StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws Exception {
    server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    upstream.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
