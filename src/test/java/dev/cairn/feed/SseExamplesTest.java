package dev.cairn.feed;

import static dev.cairn.feed.FeedSupport.notes;
import static dev.cairn.feed.FeedSupport.publishAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.Events;
import dev.cairn.relay.RelayClient;
import dev.cairn.relay.TestRelay;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The SSE consumer examples of docs/sse-consumer.md ({@code docs/examples/SseClient.java} and
 * {@code docs/examples/sse-client.mjs}) run as their users run them, as separate processes, against a
 * real relay: resume by the persisted cursor after a cut connection and after a process restart (no
 * gap, no duplicate), each reset reason, tokens. The Node client's tests are skipped without Node 18+.
 */
@Timeout(300)
class SseExamplesTest {
  private static final Path EXAMPLES = Path.of(System.getProperty("user.dir"), "docs", "examples");
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final EventSigner ALICE = EventSigner.random();
  private static TestRelay relay;

  @BeforeAll
  static void start() throws Exception {
    JsonArray tenants = new JsonArray();
    for (String t : List.of("java", "node", "javaresets", "noderesets")) {
      tenants.add(new JsonObject().put("id", t));
    }
    tenants.add(new JsonObject().put("id", "secure").put("sse", new JsonObject().put("tokens", new JsonArray().add("t0ken"))));
    relay = TestRelay.start(new JsonObject()
        .put("sse", new JsonObject().put("heartbeat_interval", "500ms"))
        .put("tenants", tenants), Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    if (relay != null) {
      relay.close();
    }
  }

  private static List<String> javaClient() {
    return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        EXAMPLES.resolve("SseClient.java").toString());
  }

  private static List<String> nodeClient() {
    try {
      Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
      String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      Assumptions.assumeTrue(p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0, "node does not run");
      int major = Integer.parseInt(v.replaceFirst("^v(\\d+)\\..*$", "$1"));
      Assumptions.assumeTrue(major >= 18, "node " + v + " has no fetch()/TextDecoderStream (needs 18+, docs say 20+)");
    } catch (IOException | InterruptedException | NumberFormatException e) {
      Assumptions.abort("node is not available: " + e);
    }
    return List.of("node", EXAMPLES.resolve("sse-client.mjs").toString());
  }

  private static String feedUrl(String tenant) {
    return feedUrl(relay.port(), tenant);
  }

  private static String feedUrl(int port, String tenant) {
    return "http://127.0.0.1:" + port + "/t/" + tenant + "/v1/events";
  }

  @Test
  void javaClientResumesAfterACutAndARestartWithoutGapOrDuplicate() throws Exception {
    resumeWithoutGapOrDuplicate(javaClient(), "java");
  }

  @Test
  void nodeClientResumesAfterACutAndARestartWithoutGapOrDuplicate() throws Exception {
    resumeWithoutGapOrDuplicate(nodeClient(), "node");
  }

  @Test
  void javaClientHandlesEveryResetReasonTokensAndErrors() throws Exception {
    resetsTokensErrors(javaClient(), "javaresets");
  }

  @Test
  void nodeClientHandlesEveryResetReasonTokensAndErrors() throws Exception {
    resetsTokensErrors(nodeClient(), "noderesets");
  }

  /**
   * A first run without a cursor (initial_sync), a backlog streamed through a proxy that cuts the
   * connection mid-stream (the client reconnects with Last-Event-ID), live events on the resumed
   * stream, then a restart of the process that resumes from the cursor file.
   */
  private static void resumeWithoutGapOrDuplicate(List<String> client, String tenant) throws Exception {
    Path dir = Files.createTempDirectory("sse-example");
    Path cursor = dir.resolve("cursor.txt");
    try (RelayClient ws = relay.connect("/t/" + tenant)) {
      Run first = run(client, feedUrl(tenant), cursor, Map.of());
      assertEquals(0, first.exit, first.err);
      assertEquals(1, first.out.size(), first.out.toString());
      assertTrue(first.out.get(0).matches("reset initial_sync [a-z2-7]{8}:0"), first.out.get(0));
      String epoch = Files.readString(cursor).substring(0, 8);
      assertEquals("reset initial_sync " + epoch + ":0", first.out.get(0));

      // A backlog: 1500 notes, a replaced profile and a NIP-09 deletion (1505 feed rows).
      List<JsonObject> published = new ArrayList<>(notes(ALICE, 1500, tenant));
      publishAll(ws, published);
      List<JsonObject> changes = changes(published.get(0).getString("id"));
      for (JsonObject e : changes) {
        publishAll(ws, List.of(e)); // one at a time: the deletion after the note, v2 after v1
      }
      published.addAll(changes);
      awaitFeed(tenant, 1505);

      List<String> lines = new ArrayList<>();
      try (CutProxy proxy = new CutProxy(relay.port(), 200_000);
          Live live = Live.start(client, feedUrl(proxy.port(), tenant), cursor, Map.of())) {
        live.awaitChanges(1505);
        assertTrue(proxy.connections.get() >= 2, "the proxy cut the first connection mid-stream");
        assertTrue(live.err().contains("resuming from " + epoch + ":"), live.err());
        // Live on the resumed stream.
        List<JsonObject> more = notes(ALICE, 200, tenant + " live");
        publishAll(ws, more);
        published.addAll(more);
        live.awaitChanges(1705);
        awaitCursor(cursor, epoch + ":1705");
        lines.addAll(live.changes());
      }
      // The process is gone; 300 more while it is away; --once runs resume from the cursor file
      // until one finds nothing new.
      List<JsonObject> later = notes(ALICE, 300, tenant + " later");
      publishAll(ws, later);
      published.addAll(later);
      awaitFeed(tenant, 2005);
      for (int runs = 0; ; runs++) {
        assertTrue(runs < 5, "still finding changes after 5 runs");
        Run again = run(client, feedUrl(tenant), cursor, Map.of());
        assertEquals(0, again.exit, again.err);
        if (again.out.isEmpty()) {
          break;
        }
        lines.addAll(again.out);
      }
      assertEquals(epoch + ":2005", Files.readString(cursor));

      // Every change once, in seq order, no hole: 1..2005.
      assertEquals(2005, lines.size());
      Set<String> storedIds = new HashSet<>();
      List<String> deleted = new ArrayList<>();
      for (int i = 0; i < lines.size(); i++) {
        String[] f = lines.get(i).split(" ");
        assertEquals(i + 1, Long.parseLong(f[1]), "gap or duplicate at line " + i + ": " + lines.get(i));
        if (f[0].equals("stored")) {
          assertTrue(storedIds.add(f[2]), "stored twice: " + lines.get(i));
        } else {
          assertEquals("deleted", f[0], lines.get(i));
          deleted.add(f[3]);
        }
      }
      assertEquals(published.stream().map(e -> e.getString("id")).collect(Collectors.toSet()), storedIds);
      assertEquals(List.of("replaced", "nip09"), deleted);
    } finally {
      TestRelaySupport.deleteTree(dir);
    }
  }

  private static void resetsTokensErrors(List<String> client, String tenant) throws Exception {
    Path dir = Files.createTempDirectory("sse-example");
    Path cursor = dir.resolve("cursor.txt");
    try (RelayClient ws = relay.connect("/t/" + tenant)) {
      publishAll(ws, notes(ALICE, 20, tenant));
      awaitFeed(tenant, 20);
      Run initial = run(client, feedUrl(tenant), cursor, Map.of());
      assertEquals(1, initial.out.size(), initial.out.toString());
      assertTrue(initial.out.get(0).matches("reset initial_sync [a-z2-7]{8}:20"), initial.out.toString());
      String epoch = Files.readString(cursor).substring(0, 8);

      // seq_too_old: rows 1..10 leave the table as a retention sweep would; the cursor 3 is below oldest - 1.
      FeedSupport.sql(relay, tenant, "DELETE FROM feed_events WHERE seq <= 10");
      Files.writeString(cursor, epoch + ":3");
      assertReset(run(client, feedUrl(tenant), cursor, Map.of()), "seq_too_old", epoch + ":20", cursor);
      // server_restart: a cursor of another epoch (the feed was recreated), or above the high seq.
      Files.writeString(cursor, (epoch.equals("aaaaaaaa") ? "bbbbbbbb" : "aaaaaaaa") + ":3");
      assertReset(run(client, feedUrl(tenant), cursor, Map.of()), "server_restart", epoch + ":20", cursor);
      Files.writeString(cursor, epoch + ":999");
      assertReset(run(client, feedUrl(tenant), cursor, Map.of()), "server_restart", epoch + ":20", cursor);

      // After a reset the client goes on from the reset's cursor: only what came after it.
      publishAll(ws, notes(ALICE, 5, tenant + " after"));
      awaitFeed(tenant, 25);
      Run after = run(client, feedUrl(tenant), cursor, Map.of());
      assertEquals(5, after.out.size(), after.out.toString());
      for (int i = 0; i < 5; i++) {
        assertTrue(after.out.get(i).startsWith("stored " + (21 + i) + " "), after.out.get(i));
      }

      // Tokens: CAIRN_TOKEN is sent as a bearer token; without it the client stops (401 is not retried).
      Path secureCursor = dir.resolve("secure.txt");
      Run withToken = run(client, feedUrl("secure"), secureCursor, Map.of("CAIRN_TOKEN", "t0ken"));
      assertEquals(0, withToken.exit, withToken.err);
      assertTrue(withToken.out.get(0).startsWith("reset initial_sync "), withToken.out.toString());
      Run without = run(client, feedUrl("secure"), dir.resolve("none.txt"), Map.of());
      assertEquals(1, without.exit);
      assertTrue(without.err.contains("fatal: HTTP 401"), without.err);
      // A malformed cursor is a 400: fatal, not retried.
      Files.writeString(cursor, "not-a-cursor");
      Run bad = run(client, feedUrl(tenant), cursor, Map.of());
      assertEquals(1, bad.exit);
      assertTrue(bad.err.contains("fatal: HTTP 400"), bad.err);
    } finally {
      TestRelaySupport.deleteTree(dir);
    }
  }

  private static void assertReset(Run r, String reason, String cursorAfter, Path cursor) throws IOException {
    assertEquals(0, r.exit, r.err);
    assertEquals(List.of("reset " + reason + " " + cursorAfter), r.out);
    assertEquals(cursorAfter, Files.readString(cursor), "the reset's id is the cursor to go on from");
  }

  /** A profile v1, its replacement v2, and a NIP-09 deletion of {@code noteId}: 5 feed rows. */
  private static List<JsonObject> changes(String noteId) {
    long now = Events.now();
    return List.of(
        Events.signed(ALICE, 0, now - 10, List.of(), "{\"name\":\"v1\"}"),
        Events.signed(ALICE, 0, now, List.of(), "{\"name\":\"v2\"}"),
        Events.signed(ALICE, 5, now, List.of(List.of("e", noteId)), "deleted by its author"));
  }

  /** The feed row lands after the write's OK: waits until the feed holds {@code seq}. */
  private static void awaitFeed(String tenant, long seq) throws Exception {
    try (SseClient c = SseClient.open(feedUrl(tenant) + "?since=" + (seq - 1))) {
      c.await(f -> f.event().equals("stored") || f.event().equals("deleted"), null);
    }
  }

  private static void awaitCursor(Path cursor, String expected) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!(Files.exists(cursor) && Files.readString(cursor).equals(expected))) {
      assertTrue(System.nanoTime() < deadline, "cursor file never reached " + expected);
      Thread.sleep(50);
    }
  }

  /** A finished run: exit code, stdout lines, stderr. */
  private record Run(int exit, List<String> out, String err) {}

  /** Runs the client with --once: to its first heartbeat. */
  private static Run run(List<String> client, String url, Path cursor, Map<String, String> env) throws Exception {
    try (Live p = Live.start(client, url, cursor, env, "--once")) {
      assertTrue(p.process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "the client did not finish: " + p.err());
      p.stdout.join(10_000);
      return new Run(p.process.exitValue(), List.copyOf(p.out), p.err());
    }
  }

  /** A client process: stdout lines as they come, stderr in a file. */
  private static final class Live implements AutoCloseable {
    final Process process;
    final List<String> out = new CopyOnWriteArrayList<>();
    final Path errFile;
    final Thread stdout;

    private Live(Process process, Path errFile) {
      this.process = process;
      this.errFile = errFile;
      this.stdout = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String l; (l = r.readLine()) != null; ) {
            out.add(l);
          }
        } catch (IOException e) {
          // process gone
        }
      }, "example-stdout");
      stdout.setDaemon(true);
      stdout.start();
    }

    static Live start(List<String> client, String url, Path cursor, Map<String, String> env, String... extra)
        throws IOException {
      List<String> cmd = new ArrayList<>(client);
      cmd.add(url);
      cmd.add(cursor.toString());
      cmd.addAll(List.of(extra));
      Path err = Files.createTempFile("sse-example", ".err");
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
      pb.environment().remove("CAIRN_TOKEN");
      pb.environment().putAll(env);
      return new Live(pb.start(), err);
    }

    List<String> changes() {
      return out.stream().filter(l -> l.startsWith("stored ") || l.startsWith("deleted ")).toList();
    }

    String err() {
      try {
        return Files.readString(errFile);
      } catch (IOException e) {
        return e.toString();
      }
    }

    void awaitChanges(int n) throws InterruptedException {
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (changes().size() < n) {
        assertTrue(process.isAlive(), "the client exited: " + err());
        assertTrue(System.nanoTime() < deadline, changes().size() + " of " + n + " changes within " + WAIT
            + "; stderr: " + err());
        Thread.sleep(20);
      }
      Thread.sleep(200); // nothing more may come
      assertEquals(n, changes().size(), "more changes than published");
    }

    @Override
    public void close() throws IOException {
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      Files.deleteIfExists(errFile);
    }
  }

  /** A TCP proxy to the relay whose first connection is cut after {@code cutAfter} bytes from the relay. */
  private static final class CutProxy implements AutoCloseable {
    final ServerSocket server;
    final AtomicInteger connections = new AtomicInteger();
    final List<Socket> sockets = new CopyOnWriteArrayList<>();

    CutProxy(int target, long cutAfter) throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread accept = new Thread(() -> {
        while (!server.isClosed()) {
          try {
            Socket client = server.accept();
            Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
            sockets.add(client);
            sockets.add(upstream);
            long limit = connections.incrementAndGet() == 1 ? cutAfter : Long.MAX_VALUE;
            pipe(client, upstream, Long.MAX_VALUE);
            pipe(upstream, client, limit);
          } catch (IOException e) {
            // closed
          }
        }
      }, "cut-proxy");
      accept.setDaemon(true);
      accept.start();
    }

    int port() {
      return server.getLocalPort();
    }

    private static void pipe(Socket from, Socket to, long limit) {
      Thread t = new Thread(() -> {
        byte[] buf = new byte[8192];
        long total = 0;
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
          for (int n; (n = in.read(buf)) >= 0 && total < limit; total += n) {
            out.write(buf, 0, n);
            out.flush();
          }
        } catch (IOException e) {
          // cut
        } finally {
          close(from);
          close(to);
        }
      }, "cut-proxy-pipe");
      t.setDaemon(true);
      t.start();
    }

    private static void close(Socket s) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
      sockets.forEach(CutProxy::close);
    }
  }
}
