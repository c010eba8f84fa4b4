package dev.cairn.feed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.RelayClient;
import dev.cairn.relay.TestRelay;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real browser EventSource: headless Chromium (Debian's {@code chromium}) loads a tenant's status
 * page, whose script opens {@code /t/<id>/v1/events} and renders every frame into the page; the
 * dumped DOM must hold the frames the server sent. Skipped, with a message, without /usr/bin/chromium.
 */
@Timeout(120)
class FeedBrowserTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

  /** Headless Chromium driven over the DevTools protocol (a WebSocket): evaluates JS in the page. */
  private static final class Browser implements AutoCloseable {
    private final Process process;
    private final Path profile;
    private final Vertx vertx = Vertx.vertx();
    /**
     * Held for the browser's life: Vert.x 5 closes a client's sockets once the client is unreachable (a
     * client made inline for the connect was collectable, and its DevTools socket was once closed during
     * the handshake in CI).
     */
    private final WebSocketClient client;
    private WebSocket ws;
    private final LinkedBlockingQueue<JsonObject> replies = new LinkedBlockingQueue<>();
    private int nextId = 1;

    Browser(String url) throws Exception {
      profile = Files.createTempDirectory("cairn-chromium");
      ProcessBuilder chromium = new ProcessBuilder(CHROMIUM.toString(), "--headless=new", "--no-sandbox",
          "--disable-gpu", "--no-first-run", "--remote-debugging-port=0", "--remote-allow-origins=*",
          "--user-data-dir=" + profile, url).redirectOutput(ProcessBuilder.Redirect.DISCARD);
      // its singleton socket's directory (org.chromium.Chromium.*) goes in TMPDIR, and stayed in /tmp
      // after every run, as the browser is ended, not quit: in the profile, it goes with it
      chromium.environment().put("TMPDIR", profile.toString());
      client = vertx.createWebSocketClient(new WebSocketClientOptions().setMaxMessageSize(16 << 20));
      process = chromium.start();
      try {
        connect(url);
      } catch (Exception | Error e) {
        close(); // chromium and its profile do not outlive a start that failed
        throw e;
      }
    }

    private void connect(String url) throws Exception {
      BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
      String line;
      String endpoint = null;
      while ((line = err.readLine()) != null) {
        int at = line.indexOf("DevTools listening on ");
        if (at >= 0) {
          endpoint = line.substring(at + "DevTools listening on ".length()).trim();
          break;
        }
      }
      assertTrue(endpoint != null, "chromium gave no DevTools endpoint");
      Thread drain = new Thread(() -> err.lines().forEach(x -> { }), "chromium-stderr");
      drain.setDaemon(true);
      drain.start();
      URI browser = URI.create(endpoint);
      // should DevTools close a page's socket during the handshake anyway: list the targets again and retry
      for (int attempt = 1; ws == null; attempt++) {
        String pageWs = pageTarget(browser.getPort(), url);
        URI page = URI.create(pageWs);
        try {
          ws = client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(page.getPort())
              .setURI(page.getPath())).toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          if (attempt == 5) {
            throw e;
          }
          Thread.sleep(200);
        }
      }
      ws.textMessageHandler(t -> {
        JsonObject m = new JsonObject(t);
        if (m.containsKey("id")) {
          replies.add(m);
        }
      });
    }

    /** The DevTools socket URL of the page showing {@code url}, once chromium lists it. */
    private static String pageTarget(int devtoolsPort, String url) throws Exception {
      for (int i = 0; i < 100; i++) {
        String list = FeedSupport.fetch("http://127.0.0.1:" + devtoolsPort + "/json/list");
        for (Object o : new JsonArray(list.isEmpty() ? "[]" : list)) {
          JsonObject t = (JsonObject) o;
          if ("page".equals(t.getString("type")) && t.getString("url", "").startsWith(url)) {
            return t.getString("webSocketDebuggerUrl");
          }
        }
        Thread.sleep(100); // the page target appears once chromium has started
      }
      throw new AssertionError("no page target for " + url);
    }

    /** The value of a JS expression in the page. */
    String eval(String expression) throws Exception {
      int id = nextId++;
      ws.writeTextMessage(new JsonObject().put("id", id).put("method", "Runtime.evaluate")
          .put("params", new JsonObject().put("expression", expression).put("returnByValue", true)).encode());
      while (true) {
        JsonObject r = replies.poll(20, TimeUnit.SECONDS);
        assertTrue(r != null, "no DevTools reply");
        if (r.getInteger("id") == id) {
          return String.valueOf(r.getJsonObject("result").getJsonObject("result").getValue("value"));
        }
      }
    }

    /** Waits until the page's rendered feed frames match {@code p}; returns them. */
    String awaitFrames(java.util.function.Predicate<String> p) throws Exception {
      String js = "Array.from(document.querySelectorAll('#feed li')).map(function (l) {"
          + " return l.className + ' ' + l.textContent; }).join('\\n')";
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      String frames = eval(js);
      while (!p.test(frames)) {
        assertTrue(System.nanoTime() < deadline, "the page never showed the expected frames: " + frames);
        Thread.sleep(100); // polling the page, not the server
        frames = eval(js);
      }
      return frames;
    }

    @Override
    public void close() throws Exception {
      // Chromium's helpers (renderer, network service) write into the profile too and outlive the main
      // process for a moment: end and wait for the whole tree before the profile goes
      List<ProcessHandle> tree = new java.util.ArrayList<>(process.descendants().toList());
      tree.add(process.toHandle());
      tree.forEach(ProcessHandle::destroy);
      for (ProcessHandle p : tree) {
        p.onExit().get(20, TimeUnit.SECONDS);
      }
      vertx.close();
      TestRelaySupport.deleteTree(profile);
    }
  }

  @Test
  void theStatusPageShowsFramesFromABrowserEventSource() throws Exception {
    assumeTrue(Files.isExecutable(CHROMIUM),
        "headless Chromium not installed (/usr/bin/chromium): apt-get install -y chromium to run this test");
    JsonObject config = new JsonObject().put("tenants", new JsonArray()
        .add(new JsonObject().put("id", "browser"))
        .add(new JsonObject().put("id", "locked").put("sse", new JsonObject().put("tokens", new JsonArray().add("t0k")))));
    try (TestRelay relay = TestRelay.start(config, Map.of())) {
      try (RelayClient ws = relay.connect("/t/browser")) {
        FeedSupport.publishAll(ws, FeedSupport.notes(EventSigner.random(), 3, "browser"));
      }
      try (SseClient c = SseClient.open(relay.httpUrl() + "/t/browser/v1/events?since=2")) {
        assertEquals("stored", c.next().event()); // the third feed row has landed
      }
      try (Browser browser = new Browser(relay.httpUrl() + "/t/browser/")) {
        String frames = browser.awaitFrames(f -> f.contains("frame-heartbeat"));
        assertTrue(Pattern.compile("frame-reset [a-z2-7]{8}:3 reset initial_sync \\(high 3\\)").matcher(frames).find(),
            "the browser got the reset frame: " + frames);
        assertTrue(Pattern.compile("frame-heartbeat [a-z2-7]{8}:3 heartbeat seq 3").matcher(frames).find(), frames);
        // Live: a new event reaches the open page.
        JsonObject live = dev.cairn.relay.Events.note(EventSigner.random(), "to the browser", List.of());
        try (RelayClient ws = relay.connect("/t/browser")) {
          FeedSupport.publishAll(ws, List.of(live));
        }
        frames = browser.awaitFrames(f -> f.contains(live.getString("id")));
        assertTrue(Pattern.compile("frame-stored [a-z2-7]{8}:4 stored kind 1 " + live.getString("id")).matcher(frames)
            .find(), frames);
        assertEquals("connected", browser.eval("document.getElementById('feed-state').textContent"));
      }

      // A tenant with tokens: the page asks for one instead of connecting by itself.
      String lockedPage = FeedSupport.fetch(relay.httpUrl() + "/t/locked/");
      assertTrue(lockedPage.contains("id=\"feed-token\""));
      assertFalse(lockedPage.contains("id=\"feed-token\" hidden"));
      assertTrue(lockedPage.contains("needsToken = true"));
    }
  }
}
