package dev.cairn.store.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.mysqlclient.MySQLBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * MySQL resets the socket of a connection the relay holds (a server restart, a failover, a proxy dropping
 * it): the work fails with an error and nothing is printed to stderr, where vertx-sql-client printed the
 * bare stack trace of a connection without an exception handler into the relay's log.
 */
class PooledConnectionsTest extends MysqlTestBase {

  @Test
  void aSocketResetMidTransactionFailsTheWorkAndPrintsNothing() throws Exception {
    assertResetIsQuiet(PooledConnections::inTransaction);
  }

  @Test
  void aSocketResetOnAHeldConnectionFailsTheWorkAndPrintsNothing() throws Exception {
    assertResetIsQuiet(PooledConnections::onConnection);
  }

  private void assertResetIsQuiet(
      BiFunction<Pool, Function<SqlConnection, Future<Object>>, Future<Object>> run) throws Exception {
    try (ResettingProxy proxy = new ResettingProxy(mysql.server.port())) {
      Pool pool = MySQLBuilder.pool().with(new PoolOptions().setMaxSize(1))
          .connectingTo(mysql.server.connectOptions().setHost("127.0.0.1").setPort(proxy.port()))
          .using(vertx).build();
      PrintStream stderr = System.err;
      ByteArrayOutputStream printed = new ByteArrayOutputStream();
      try {
        TestMysqlServer.await(pool.query("SELECT 1").execute()); // the pool's connection is open
        System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
        Future<Object> work = run.apply(pool, conn -> conn.query("SELECT SLEEP(10)").execute().map(rows -> rows));
        Thread.sleep(500); // the query is running on the server
        proxy.reset();
        ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
            () -> work.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS));
        assertTrue(failed.getCause() != null, "the work failed with its cause");
        Thread.sleep(300); // what the client would print comes right after the reset
      } finally {
        System.setErr(stderr);
        TestMysqlServer.await(pool.close());
      }
      // the reset's own trace, not any line another thread may print meanwhile
      String out = printed.toString(StandardCharsets.UTF_8);
      org.junit.jupiter.api.Assertions.assertFalse(out.contains("SocketException") || out.contains("Connection reset"),
          "no stack trace of the reset printed to stderr: " + out);
    }
  }

  /** A TCP proxy to MySQL whose {@link #reset} aborts every proxied connection with a TCP reset. */
  private static final class ResettingProxy implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    ResettingProxy(int targetPort) throws Exception {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread acceptor = new Thread(() -> {
        while (!server.isClosed()) {
          try {
            Socket client = server.accept();
            Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
            sockets.add(client);
            sockets.add(target);
            pump(client, target);
            pump(target, client);
          } catch (Exception e) {
            return;
          }
        }
      }, "resetting-proxy");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return server.getLocalPort();
    }

    private static void pump(Socket from, Socket to) {
      Thread t = new Thread(() -> {
        byte[] buf = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
          for (int n; (n = in.read(buf)) > 0; ) {
            out.write(buf, 0, n);
          }
        } catch (Exception ignored) {
          // the other side is gone
        }
      }, "resetting-proxy-pump");
      t.setDaemon(true);
      t.start();
    }

    /** Every proxied connection ends with an RST (SO_LINGER 0), not a FIN. */
    void reset() {
      for (Socket s : sockets) {
        try {
          s.setSoLinger(true, 0);
          s.close();
        } catch (Exception ignored) {
          // closed already
        }
      }
      sockets.clear();
    }

    @Override
    public void close() throws Exception {
      server.close();
      reset();
    }
  }
}
