package dev.cairn.cli;

import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The network import: each line published to a running relay as {@code ["EVENT",...]} over one
 * WebSocket, pipelined (up to {@code inFlight} EVENTs sent and not yet answered), each OK counted by
 * its message. The relay does everything a live EVENT gets (verification, every policy rule,
 * storage, delivery to its subscribers); this side only parses the lines (to know the ids, and to
 * keep junk off the wire) and sizes frames to the relay's {@code max_message_length} (NIP-11).
 *
 * <p>Flow: one sender thread (the caller's) reads, sends and re-sends; the WebSocket's listener
 * counts the answers. A {@code rate-limited:} answer puts its event back in a retry queue; the first
 * one after sending resumed halves the window of EVENTs in flight and pauses sending (50 ms,
 * doubling while pauses keep ending in rate limits, at most 5 s); every other answer widens the
 * window by one again and resets the pause (AIMD), so the import settles at the rate the relay grants. The run gives up when no EVENT got a final answer for
 * {@link #ANSWER_TIMEOUT_MS}. A lost connection is reopened (up to {@link #MAX_RECONNECTS} times in
 * a row) and every unanswered EVENT sent again: one the relay had stored before the loss then
 * counts as a duplicate. An id already in flight is not sent twice (counted as a duplicate here).
 */
final class NetworkImport {
  static final int MAX_RECONNECTS = 5;
  static final long ANSWER_TIMEOUT_MS = 60_000;
  static final String SAME_ID = "duplicate: same id earlier in the input (not sent again)";
  private static final long MIN_PAUSE_MS = 50;
  private static final long MAX_PAUSE_MS = 5_000;

  /** An EVENT sent and not yet finally answered. */
  private static final class Pending {
    final String text;
    /** Waiting in the retry queue (not on the wire). */
    volatile boolean queued;

    Pending(String text) {
      this.text = text;
    }
  }

  private final URI uri;
  private final Outcomes outcomes;
  private final PrintStream err;
  private final int maxWindow;
  private final Map<String, Pending> pending = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Pending> retries = new ConcurrentLinkedQueue<>();
  private final Object sendLock = new Object();
  private final Object flow = new Object();
  private final HttpClient http;
  private final ExecutorService reconnector;
  private final AtomicLong lastProgress = new AtomicLong(System.nanoTime());
  private final AtomicBoolean authAsked = new AtomicBoolean();
  private final AtomicLong notices = new AtomicLong();
  /** Guarded by {@code flow}. */
  private int onWire;
  private int window;
  private long pauseMs = MIN_PAUSE_MS;
  private long pauseUntilNanos = System.nanoTime();
  private volatile WebSocket ws;
  private volatile boolean closing;
  private volatile String fatal;

  NetworkImport(URI uri, int inFlight, Outcomes outcomes, PrintStream err) {
    this.uri = uri;
    this.maxWindow = inFlight;
    this.window = inFlight;
    this.outcomes = outcomes;
    this.err = err;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    this.reconnector = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "cairn-import-reconnect");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * The relay's NIP-11 {@code limitation.max_message_length} at {@code uri} (http(s) of the same
   * address), or {@code fallback} when it does not say.
   */
  static int maxMessageLength(URI uri, int fallback) {
    try {
      String scheme = uri.getScheme().equalsIgnoreCase("wss") ? "https" : "http";
      URI info = new URI(scheme, uri.getRawAuthority(), uri.getRawPath() == null || uri.getRawPath().isEmpty()
          ? "/" : uri.getRawPath(), null, null);
      HttpResponse<String> r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()
          .send(HttpRequest.newBuilder(info).header("Accept", "application/nostr+json")
              .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        return fallback;
      }
      JsonObject limitation = new JsonObject(r.body()).getJsonObject("limitation");
      Integer max = limitation == null ? null : limitation.getInteger("max_message_length");
      return max == null || max <= 0 ? fallback : max;
    } catch (Exception e) {
      return fallback;
    }
  }

  static String tooLong(int max) {
    return "invalid: event longer than the relay's max_message_length (" + max + " bytes)";
  }

  /** Publishes every line; returns null when every EVENT got its answer, else why the run stopped. */
  String run(LineReader lines, int maxMessage) throws IOException, InterruptedException {
    try {
      ws = connect();
    } catch (Exception e) {
      return "cannot connect to " + uri + ": " + NetworkImport.rootMessage(e);
    }
    try {
      boolean inputDone = false;
      while (fatal == null) {
        checkSilence();
        long pause = pauseLeftNanos();
        if (pause > 0) {
          TimeUnit.NANOSECONDS.sleep(Math.min(pause, TimeUnit.MILLISECONDS.toNanos(50)));
          continue;
        }
        Pending retry = retries.peek();
        if (retry != null) {
          if (awaitWindow()) {
            retries.poll();
            retry.queued = false;
            send(retry.text);
          }
          continue;
        }
        if (inputDone) {
          if (pending.isEmpty()) {
            break;
          }
          Thread.sleep(10);
          continue;
        }
        byte[] line = lines.next();
        if (line == null) {
          inputDone = true;
        } else if (line == LineReader.TOO_LONG) {
          outcomes.add(tooLong(maxMessage));
        } else if (LineReader.blank(line)) {
          outcomes.blankLine();
        } else {
          publish(line, maxMessage);
        }
      }
      return fatal;
    } finally {
      closing = true;
      for (int i = 0; i < pending.size(); i++) {
        outcomes.add("error: no answer from the relay");
      }
      pending.clear();
      WebSocket w = ws;
      if (w != null) {
        try {
          w.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, TimeUnit.SECONDS);
        } catch (Exception ignored) {
          w.abort();
        }
      }
      reconnector.shutdownNow();
    }
  }

  private void publish(byte[] line, int maxMessage) throws InterruptedException {
    NostrEvent e;
    try {
      e = EventLines.parse(line);
    } catch (InvalidMessageException x) {
      outcomes.add(x.getMessage());
      return;
    }
    if (e.bytes().json().length + 10 > maxMessage) {
      outcomes.add(tooLong(maxMessage));
      return;
    }
    if (pending.containsKey(e.id())) {
      outcomes.add(SAME_ID);
      return;
    }
    while (!awaitWindow()) {
      if (fatal != null) {
        return;
      }
    }
    Pending p = new Pending("[\"EVENT\"," + e.jsonText() + "]");
    pending.put(e.id(), p);
    send(p.text);
  }

  /** Takes a place in the window (true), or false after a while so the caller can look around. */
  private boolean awaitWindow() throws InterruptedException {
    synchronized (flow) {
      if (onWire >= window) {
        flow.wait(200);
        if (onWire >= window) {
          checkSilence();
          return false;
        }
      }
      onWire++;
      return true;
    }
  }

  private long pauseLeftNanos() {
    synchronized (flow) {
      return pauseUntilNanos - System.nanoTime();
    }
  }

  /** An answer came for an EVENT on the wire: a final one widens the window, a rate limit narrows it. */
  private void answeredOne(boolean rateLimited) {
    synchronized (flow) {
      onWire = Math.max(0, onWire - 1);
      long now = System.nanoTime();
      if (rateLimited) {
        // Answers to EVENTs sent before the pause began are the same signal: once per pause.
        if (now - pauseUntilNanos >= 0) {
          window = Math.max(1, window / 2);
          pauseUntilNanos = now + TimeUnit.MILLISECONDS.toNanos(pauseMs);
          pauseMs = Math.min(MAX_PAUSE_MS, pauseMs * 2);
        }
      } else {
        window = Math.min(maxWindow, window + 1);
        pauseMs = MIN_PAUSE_MS;
      }
      flow.notifyAll();
    }
  }

  /** No final answer for a while although EVENTs wait for one: the relay is stuck, give up. */
  private void checkSilence() {
    if (!pending.isEmpty()
        && System.nanoTime() - lastProgress.get() > TimeUnit.MILLISECONDS.toNanos(ANSWER_TIMEOUT_MS)) {
      fatal = "no answer from the relay for " + ANSWER_TIMEOUT_MS / 1000 + " s with " + pending.size()
          + " EVENTs unanswered";
    }
  }

  private WebSocket connect() throws Exception {
    return http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10))
        .buildAsync(uri, new Listener()).get(20, TimeUnit.SECONDS);
  }

  /** Sends one frame (one send at a time); reconnects when the socket broke. */
  private void send(String text) {
    synchronized (sendLock) {
      while (fatal == null) {
        WebSocket w = ws;
        try {
          w.sendText(text, true).get(30, TimeUnit.SECONDS);
          return;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          fatal = "interrupted";
          return;
        } catch (Exception e) {
          reconnect(w, rootMessage(e));
        }
      }
    }
  }

  /** Replaces {@code broken} (unless someone already did) and sends every EVENT on the wire again. */
  private void reconnect(WebSocket broken, String why) {
    synchronized (sendLock) {
      if (ws != broken || closing || fatal != null) {
        return;
      }
      for (int attempt = 1; attempt <= MAX_RECONNECTS; attempt++) {
        err.println("import: connection to " + uri + " lost (" + why + "), reconnecting (" + attempt + "/"
            + MAX_RECONNECTS + ")");
        try {
          Thread.sleep(500L << (attempt - 1));
          WebSocket fresh = connect();
          ws = fresh;
          lastProgress.set(System.nanoTime());
          for (Pending p : pending.values()) {
            if (!p.queued) {
              fresh.sendText(p.text, true).get(30, TimeUnit.SECONDS);
            }
          }
          return;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          fatal = "interrupted";
          return;
        } catch (Exception e) {
          why = rootMessage(e);
        }
      }
      fatal = "connection to " + uri + " lost and not regained: " + why;
    }
  }

  private void answered(String id, boolean ok, String message) {
    Pending p = pending.get(id);
    if (p == null || p.queued) {
      return; // not ours, or a second answer
    }
    if (!ok && message.startsWith("rate-limited:")) {
      p.queued = true;
      retries.add(p);
      answeredOne(true);
      return;
    }
    lastProgress.set(System.nanoTime());
    outcomes.add(ok ? (message.startsWith("duplicate:") ? message : Outcomes.STORED) : message);
    pending.remove(id, p);
    answeredOne(false);
  }

  private void message(String text) {
    JsonArray m;
    try {
      m = new JsonArray(text);
    } catch (RuntimeException e) {
      return;
    }
    switch (m.size() == 0 ? "" : String.valueOf(m.getValue(0))) {
      case "OK" -> {
        if (m.size() >= 3 && m.getValue(1) instanceof String id && m.getValue(2) instanceof Boolean ok) {
          answered(id, ok, m.size() > 3 && m.getValue(3) instanceof String s ? s : "");
        }
      }
      case "NOTICE" -> {
        if (notices.incrementAndGet() <= 10) {
          err.println("import: relay NOTICE: " + (m.size() > 1 ? m.getValue(1) : ""));
        }
      }
      case "AUTH" -> {
        if (authAsked.compareAndSet(false, true)) {
          err.println("import: the relay asks for NIP-42 auth; import does not authenticate (events it refuses"
              + " for that are counted as auth-required)");
        }
      }
      default -> {
        // CLOSED, EOSE, EVENT: not ours
      }
    }
  }

  private final class Listener implements WebSocket.Listener {
    private final StringBuilder partial = new StringBuilder();

    @Override
    public void onOpen(WebSocket webSocket) {
      webSocket.request(1);
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        String text = partial.toString();
        partial.setLength(0);
        message(text);
      }
      webSocket.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket webSocket, java.nio.ByteBuffer data, boolean last) {
      webSocket.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
      lost(webSocket, "closed by the relay: " + statusCode + (reason.isEmpty() ? "" : " " + reason));
      return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
      lost(webSocket, rootMessage(error));
    }
  }

  private void lost(WebSocket w, String why) {
    if (!closing && w == ws) {
      try {
        reconnector.execute(() -> reconnect(w, why));
      } catch (RuntimeException ignored) {
        // shut down: the run is over
      }
    }
  }

  static String rootMessage(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }
}
