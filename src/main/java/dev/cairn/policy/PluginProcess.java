package dev.cairn.policy;

import io.vertx.core.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One running plugin process and its three threads: a writer (takes requests from a queue, builds
 * their JSON lines and writes them to stdin, so a plugin that stops reading blocks only this thread),
 * a stdout reader (splits and parses answer lines) and a stderr reader (logs each line). Everything
 * the threads learn is handed to the policy node's context through a {@link Listener}; the requests
 * in flight are kept and matched there, by event id, oldest first.
 */
final class PluginProcess {
  private static final Logger LOG = Logger.getLogger(Plugin.class.getName());
  /** Longest answer line read; a longer one is discarded as garbage (strfry's limit is 8 KiB). */
  static final int MAX_LINE = 64 * 1024;
  private static final long KILL_GRACE_MILLIS = 2000;
  private static final Object CLOSE = new Object();

  /** Called on the policy node's context, in the order the plugin wrote its lines. */
  interface Listener {
    void answer(PluginProcess p, PluginProtocol.Answer a);

    void garbage(PluginProcess p, String line, String why);

    /** stdout reached its end and the process is gone. */
    void exited(PluginProcess p, int code);
  }

  private final Process process;
  private final String name;
  private final LinkedBlockingQueue<Object> toWrite = new LinkedBlockingQueue<>();
  final long startedNanos = System.nanoTime();

  // ---- event-loop state ----
  private final Map<String, ArrayDeque<PluginRequest>> pending = new HashMap<>();
  private int pendingCount;
  /** Lines written minus answers read: how many the plugin still owes (timed-out ones included). */
  private long owed;
  /** Last time the plugin showed progress: an answer, or a request while it owed nothing. */
  long lastProgressNanos = startedNanos;
  /** Killed or stdin closed: nothing more is sent to it. */
  boolean retired;
  /** Its exit status once it is gone (it may go before the node adopted it). */
  Integer exitCode;

  private PluginProcess(Process process, String name) {
    this.process = process;
    this.name = name;
  }

  /** Starts the process and its threads. Blocking (fork and exec): call on a worker. */
  static PluginProcess start(List<String> argv, String name, Context ctx, Listener listener) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(argv);
    Process proc = pb.start();
    PluginProcess p = new PluginProcess(proc, name);
    String base = "cairn-plugin-" + name + "-" + proc.pid();
    daemon(base + "-in", p::writeLoop);
    daemon(base + "-out", () -> p.readLoop(ctx, listener));
    daemon(base + "-err", p::stderrLoop);
    return p;
  }

  private static void daemon(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }

  long pid() {
    return process.pid();
  }

  // ---- event loop ----

  /** Hands a request to the writer thread; never blocks. */
  void send(PluginRequest r) {
    r.sentTo = this;
    pending.computeIfAbsent(r.id(), k -> new ArrayDeque<>(1)).add(r);
    pendingCount++;
    if (owed++ == 0) {
      lastProgressNanos = System.nanoTime();
    }
    toWrite.add(r);
  }

  /** The oldest request still waiting for an answer about {@code id}, removed; null when none. */
  PluginRequest take(String id) {
    owed = Math.max(0, owed - 1);
    lastProgressNanos = System.nanoTime();
    ArrayDeque<PluginRequest> q = pending.get(id);
    if (q == null) {
      return null;
    }
    PluginRequest r = q.poll();
    if (q.isEmpty()) {
      pending.remove(id);
    }
    pendingCount--;
    return r;
  }

  /** Stops waiting for {@code r} (it timed out); the plugin may still answer it. */
  void forget(PluginRequest r) {
    ArrayDeque<PluginRequest> q = pending.get(r.id());
    if (q != null && q.remove(r)) {
      pendingCount--;
      if (q.isEmpty()) {
        pending.remove(r.id());
      }
    }
  }

  /** Every request still waiting, removed. */
  List<PluginRequest> drain() {
    List<PluginRequest> out = new ArrayList<>(pendingCount);
    pending.values().forEach(out::addAll);
    pending.clear();
    pendingCount = 0;
    return out;
  }

  int pendingCount() {
    return pendingCount;
  }

  /** True when the plugin owes answers and has shown no progress for {@code nanos}. */
  boolean stalledFor(long nanos, long now) {
    return owed > 0 && now - lastProgressNanos > nanos;
  }

  /** Closes stdin once what is queued is written: a well-behaved plugin answers and exits. */
  void closeInput() {
    retired = true;
    toWrite.add(CLOSE);
  }

  /** SIGTERM to the process and its descendants, SIGKILL to whatever is left after a grace period. */
  void kill() {
    retired = true;
    toWrite.add(CLOSE);
    List<ProcessHandle> family = new ArrayList<>();
    try {
      process.descendants().forEach(family::add);
    } catch (RuntimeException e) {
      // the family could not be listed; the process itself is still killed
    }
    process.destroy();
    family.forEach(ProcessHandle::destroy);
    CompletableFuture.delayedExecutor(KILL_GRACE_MILLIS, TimeUnit.MILLISECONDS).execute(() -> {
      if (process.isAlive()) {
        process.destroyForcibly();
      }
      family.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    });
  }

  // ---- threads ----

  private void writeLoop() {
    try (OutputStream out = process.getOutputStream()) {
      while (true) {
        Object m = toWrite.take();
        if (m == CLOSE) {
          return;
        }
        // written even when it timed out meanwhile: the plugin's answer keeps the count of what it owes exact
        out.write(((PluginRequest) m).line().getBytes(StandardCharsets.UTF_8));
        out.write('\n');
        if (toWrite.isEmpty()) {
          out.flush();
        }
      }
    } catch (IOException e) {
      // the plugin closed its stdin or died: its exit is reported by the stdout reader
      LOG.log(Level.FINE, "plugin " + name + " (pid " + pid() + "): stdin closed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      toWrite.clear();
    }
  }

  private void readLoop(Context ctx, Listener listener) {
    try (InputStream in = process.getInputStream()) {
      lines(in, MAX_LINE, line -> {
        if (line == null) {
          ctx.runOnContext(v -> listener.garbage(this, "", "a line longer than " + MAX_LINE + " bytes"));
          return;
        }
        if (line.isBlank()) {
          return;
        }
        PluginProtocol.Answer a;
        try {
          a = PluginProtocol.parse(line);
        } catch (IllegalArgumentException e) {
          ctx.runOnContext(v -> listener.garbage(this, line, e.getMessage()));
          return;
        }
        ctx.runOnContext(v -> listener.answer(this, a));
      });
    } catch (IOException e) {
      LOG.log(Level.FINE, "plugin " + name + " (pid " + pid() + "): stdout closed", e);
    }
    int code;
    try {
      code = process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      code = -1;
    }
    int exit = code;
    ctx.runOnContext(v -> listener.exited(this, exit));
  }

  private void stderrLoop() {
    try (InputStream in = process.getErrorStream()) {
      lines(in, 4096, line -> {
        if (line != null && !line.isBlank()) {
          LOG.info("plugin " + name + " (pid " + pid() + ") stderr: " + line);
        }
      });
    } catch (IOException e) {
      // gone with the process
    }
  }

  /**
   * Splits a stream into UTF-8 lines (a trailing {@code \r} dropped); a line longer than {@code max}
   * bytes is skipped and reported once as null. Returns at the end of the stream.
   */
  static void lines(InputStream in, int max, Consumer<String> out) throws IOException {
    byte[] buf = new byte[8192];
    ByteArrayOutputStream line = new ByteArrayOutputStream(256);
    boolean overlong = false;
    int n;
    while ((n = in.read(buf)) >= 0) {
      int start = 0;
      for (int i = 0; i < n; i++) {
        if (buf[i] != '\n') {
          continue;
        }
        if (!overlong) {
          line.write(buf, start, i - start);
        }
        emit(line, overlong, max, out);
        line.reset();
        overlong = false;
        start = i + 1;
      }
      if (!overlong) {
        line.write(buf, start, n - start);
        if (line.size() > max) {
          overlong = true;
          line.reset();
        }
      }
    }
    if (overlong || line.size() > 0) {
      emit(line, overlong, max, out);
    }
  }

  private static void emit(ByteArrayOutputStream line, boolean overlong, int max, Consumer<String> out) {
    if (overlong || line.size() > max) {
      out.accept(null);
      return;
    }
    String s = line.toString(StandardCharsets.UTF_8);
    out.accept(s.endsWith("\r") ? s.substring(0, s.length() - 1) : s);
  }
}
