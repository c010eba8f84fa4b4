package dev.cairn.policy;

import dev.cairn.config.PolicyConfig;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One configured plugin command and the process that runs it (docs/plugins.md): started when the
 * policy node starts (or when a reload first names it), restarted with backoff when it exits or
 * hangs, replaced when its file changes, shared by every tenant that names the same command.
 * Lives on the policy node's event loop; process I/O happens on the {@link PluginProcess} threads,
 * spawning and file checks on workers.
 *
 * <p>Each request is settled exactly once: by the plugin's answer, by its timeout, or at once when
 * the plugin cannot take it (too many in flight for the tenant, plugin down for longer than the
 * timeout, plugin gone with the request). Settling turns the outcome into a {@link Verdict} (null:
 * accepted) and counts it in {@code cairn_policy_plugin_requests_total{tenant,action}}.
 */
final class Plugin implements PluginProcess.Listener {
  private static final Logger LOG = Logger.getLogger(Plugin.class.getName());
  static final String RULE = "plugin";
  /** Watchdog: hang check, and the command's files compared with what was started. */
  static final long TICK_MILLIS = 500;
  /** A plugin owing answers shows no progress for this long (or its timeout, if longer): hung. */
  static final long MIN_HUNG_NANOS = TimeUnit.SECONDS.toNanos(5);
  static final long FIRST_BACKOFF_MILLIS = 100;
  static final long MAX_BACKOFF_MILLIS = 30_000;
  /** A process that ran this long before it died starts the backoff over. */
  static final long STABLE_NANOS = TimeUnit.SECONDS.toNanos(10);

  private enum State { STARTING, RUNNING, BACKOFF, CLOSED }

  /** How a file looked when the process was started. */
  private record Stamp(FileTime modified, long size) {}

  private final Vertx vertx;
  private final Context ctx;
  private final PolicyMetrics metrics;
  private final PolicyConfig.Plugin settings;
  private final String name;
  private final List<String> argv;

  private State state;
  private PluginProcess current;
  /** Processes replaced or dropped but still owed answers: they finish what they hold. */
  private final List<PluginProcess> retiring = new ArrayList<>();
  /** Requests waiting for a process (while one starts or after a crash). */
  private final ArrayDeque<PluginRequest> waiting = new ArrayDeque<>();
  private final Map<String, Integer> inFlight = new HashMap<>();
  private Map<Path, Stamp> stamps = Map.of();
  private int failures;
  private long restartAtNanos;
  private long restartTimer = -1;
  private String restartReason;
  private final long tick;
  private boolean checkingFiles;
  private long maxTimeoutNanos;
  private boolean downLogged;
  private long garbageWindowStart;
  private int garbageSuppressed;

  Plugin(Vertx vertx, PolicyConfig.Plugin settings, PolicyMetrics metrics) {
    this.vertx = vertx;
    this.ctx = vertx.getOrCreateContext();
    this.settings = settings;
    this.metrics = metrics;
    this.name = displayName(settings);
    this.argv = settings.shell() ? List.of("/bin/sh", "-c", settings.command().get(0)) : settings.command();
    this.maxTimeoutNanos = settings.timeout().toNanos();
    spawn();
    this.tick = vertx.setPeriodic(TICK_MILLIS, id -> watch());
  }

  String name() {
    return name;
  }

  /** A short label for logs and metrics: the script's file name, else the program's. */
  static String displayName(PolicyConfig.Plugin p) {
    List<String> words = p.shell() ? List.of(p.command().get(0).trim().split("\\s+")) : p.command();
    String pick = null;
    for (String w : words) {
      if (w.indexOf('/') >= 0 && !w.contains("=")) {
        pick = w;
      }
    }
    if (pick == null) {
      pick = words.get(0);
    }
    String base = pick.substring(pick.lastIndexOf('/') + 1);
    return base.isEmpty() ? pick : base;
  }

  // ---- requests ----

  /** Asks the plugin about an event; the future completes on this context with null (accept) or a verdict. */
  Future<Verdict> judge(String tenant, PolicyConfig.Plugin tenantSettings, NostrEvent e, String ip, String authed,
      long receivedAt) {
    Promise<Verdict> promise = Promise.promise();
    long timeout = tenantSettings.timeout().toNanos();
    PluginRequest r = new PluginRequest(tenant, e, ip, authed, receivedAt, timeout, tenantSettings.acceptOnFailure(),
        promise);
    int n = inFlight.getOrDefault(tenant, 0);
    if (n >= tenantSettings.maxInFlight()) {
      r.done = true;
      metrics.pluginRequest(tenant, "overload");
      promise.complete(Verdict.reject(RULE,
          "rate-limited: the write policy is busy (" + n + " events waiting), try again later"));
      return promise.future();
    }
    inFlight.put(tenant, n + 1);
    maxTimeoutNanos = Math.max(maxTimeoutNanos, timeout);
    switch (state) {
      case RUNNING -> current.send(r);
      case STARTING -> waiting.add(r);
      case BACKOFF -> {
        if (restartAtNanos - System.nanoTime() <= timeout) {
          waiting.add(r);
        } else {
          fail(r, "error", "error: the write policy is not available, try again later");
          return promise.future();
        }
      }
      case CLOSED -> {
        fail(r, "error", "error: the write policy is not available, try again later");
        return promise.future();
      }
    }
    r.timer = vertx.setTimer(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeout)), id -> timedOut(r));
    return promise.future();
  }

  private void timedOut(PluginRequest r) {
    r.timer = -1;
    if (r.done) {
      return;
    }
    if (r.sentTo != null) {
      r.sentTo.forget(r);
      fail(r, "timeout", "error: the write policy did not answer in time, try again later");
    } else {
      waiting.remove(r);
      fail(r, "error", "error: the write policy is not available, try again later");
    }
  }

  /** A plugin failure settles the request per {@code plugin_timeout_action}. */
  private void fail(PluginRequest r, String action, String rejection) {
    if (state != State.RUNNING && !downLogged && !r.done) {
      downLogged = true;
      LOG.warning("plugin " + name + " is not running: events are " + (r.acceptOnFailure ? "accepted" : "rejected")
          + " without it (plugin_timeout_action) until it is back");
    }
    settle(r, action, r.acceptOnFailure ? null : Verdict.reject(RULE, rejection));
  }

  private void settle(PluginRequest r, String action, Verdict v) {
    if (r.done) {
      return;
    }
    r.done = true;
    if (r.timer >= 0) {
      vertx.cancelTimer(r.timer);
      r.timer = -1;
    }
    inFlight.computeIfPresent(r.tenant, (k, n) -> n <= 1 ? null : n - 1);
    metrics.pluginRequest(r.tenant, action);
    r.promise.complete(v);
  }

  // ---- what the process says (on this context) ----

  @Override
  public void answer(PluginProcess p, PluginProtocol.Answer a) {
    PluginRequest r = p.take(a.id());
    if (r == null || r.done) {
      LOG.fine(() -> "plugin " + name + ": answer for " + a.id() + " that nothing waits for (late, after a timeout?)");
    } else {
      switch (a.action()) {
        case "accept" -> settle(r, "accept", null);
        case "reject" -> {
          String msg = PluginProtocol.rejection(a.msg());
          LOG.fine(() -> "plugin " + name + " rejected " + a.id() + " of tenant " + r.tenant + ": " + msg);
          settle(r, "reject", Verdict.reject(RULE, msg));
        }
        case "shadowReject" -> settle(r, "shadowReject", new Verdict(RULE, null, true));
        default -> {
          LOG.warning("plugin " + name + ": unknown action \"" + a.action() + "\" for event " + a.id()
              + " (expected accept, reject or shadowReject)");
          fail(r, "error", "error: internal error");
        }
      }
    }
    if (p.retired && p != current && p.pendingCount() == 0) {
      p.kill();
    }
  }

  @Override
  public void garbage(PluginProcess p, String line, String why) {
    long now = System.nanoTime();
    if (now - garbageWindowStart < TimeUnit.SECONDS.toNanos(1)) {
      garbageSuppressed++;
      return;
    }
    String more = garbageSuppressed > 0 ? " (" + garbageSuppressed + " more such lines not logged)" : "";
    garbageWindowStart = now;
    garbageSuppressed = 0;
    String shown = line.length() > 200 ? line.substring(0, 200) + "..." : line;
    LOG.warning("plugin " + name + " (pid " + p.pid() + ") wrote a line that is not an answer (" + why + "), ignored: "
        + shown + more);
  }

  @Override
  public void exited(PluginProcess p, int code) {
    p.exitCode = code;
    if (state == State.STARTING && current == null && !retiring.contains(p)) {
      return; // gone before spawn() adopted it: spawn() reports it
    }
    List<PluginRequest> lost = p.drain();
    for (PluginRequest r : lost) {
      fail(r, "error", "error: the write policy failed, try again later");
    }
    if (retiring.remove(p)) {
      if (!lost.isEmpty()) {
        LOG.warning("plugin " + name + " (pid " + p.pid() + ", replaced) exited with code " + code + ", "
            + lost.size() + " events unanswered");
      }
      return;
    }
    if (p != current || state == State.CLOSED) {
      return;
    }
    LOG.warning("plugin " + name + " (pid " + p.pid() + ") exited with code " + code
        + (lost.isEmpty() ? "" : ", " + lost.size() + " events unanswered") + "; restarting it");
    current = null;
    lose(p, "exit");
  }

  // ---- lifecycle ----

  /** The current process is gone: back off, then start another one. */
  private void lose(PluginProcess p, String reason) {
    if (System.nanoTime() - p.startedNanos >= STABLE_NANOS) {
      failures = 0;
    }
    backoff(reason);
  }

  private void backoff(String reason) {
    failures++;
    long delay = Math.min(MAX_BACKOFF_MILLIS, FIRST_BACKOFF_MILLIS << Math.min(20, failures - 1));
    state = State.BACKOFF;
    restartReason = reason;
    restartAtNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay);
    restartTimer = vertx.setTimer(delay, id -> {
      restartTimer = -1;
      if (state == State.BACKOFF) {
        spawn();
      }
    });
    if (delay > 1000) {
      LOG.warning("plugin " + name + " failed " + failures + " times in a row; next start in " + delay + " ms");
    }
    // what waits longer than the backoff would not be answered in time anyway
    for (PluginRequest r : new ArrayList<>(waiting)) {
      if (restartAtNanos - System.nanoTime() > r.timeoutNanos) {
        waiting.remove(r);
        fail(r, "error", "error: the write policy is not available, try again later");
      }
    }
  }

  private void spawn() {
    state = State.STARTING;
    if (restartReason != null) {
      metrics.pluginRestarted(name, restartReason);
    }
    vertx.executeBlocking(() -> {
      Map<Path, Stamp> s = stat(watchedFiles());
      return new Object[] {s, PluginProcess.start(argv, name, ctx, this)};
    }, false).onComplete(ar -> {
      if (ar.failed()) {
        LOG.log(Level.SEVERE, "plugin " + name + ": cannot start " + argv + ": " + ar.cause().getMessage());
        downLogged = false;
        backoff("start_failed");
        return;
      }
      @SuppressWarnings("unchecked")
      Map<Path, Stamp> s = (Map<Path, Stamp>) ar.result()[0];
      PluginProcess p = (PluginProcess) ar.result()[1];
      if (state == State.CLOSED) {
        p.kill();
        return;
      }
      LOG.info("plugin " + name + " started (pid " + p.pid() + "): " + settings.commandLine());
      stamps = s;
      current = p;
      state = State.RUNNING;
      restartReason = null;
      downLogged = false;
      while (!waiting.isEmpty()) {
        PluginRequest r = waiting.poll();
        if (!r.done) {
          p.send(r);
        }
      }
      if (p.exitCode != null) {
        exited(p, p.exitCode); // it did not even wait for its first request
      }
    });
  }

  /**
   * The files whose change restarts the plugin (as strfry: a command string without spaces is a
   * path to a script); for a command list, every element naming an existing file. Worker thread.
   */
  private List<Path> watchedFiles() {
    List<Path> out = new ArrayList<>();
    if (settings.shell()) {
      String c = settings.command().get(0).trim();
      if (!c.matches(".*\\s.*")) {
        out.add(Path.of(c));
      }
    } else {
      for (String a : settings.command()) {
        try {
          Path p = Path.of(a);
          if (!a.isEmpty() && Files.isRegularFile(p)) {
            out.add(p);
          }
        } catch (RuntimeException e) {
          // not a path
        }
      }
    }
    return out;
  }

  private static Map<Path, Stamp> stat(List<Path> files) {
    Map<Path, Stamp> out = new LinkedHashMap<>();
    for (Path f : files) {
      try {
        BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
        out.put(f, new Stamp(a.lastModifiedTime(), a.size()));
      } catch (IOException e) {
        out.put(f, null);
      }
    }
    return out;
  }

  /** Every tick: a hung plugin is restarted, a changed one replaced. */
  private void watch() {
    if (state != State.RUNNING) {
      return;
    }
    long now = System.nanoTime();
    long hungAfter = Math.max(MIN_HUNG_NANOS, maxTimeoutNanos);
    if (current.stalledFor(hungAfter, now)) {
      PluginProcess p = current;
      LOG.warning("plugin " + name + " (pid " + p.pid() + ") owes answers and gave none for "
          + TimeUnit.NANOSECONDS.toMillis(now - p.lastProgressNanos) + " ms: killing and restarting it");
      current = null;
      p.kill();
      for (PluginRequest r : p.drain()) {
        fail(r, "error", "error: the write policy failed, try again later");
      }
      lose(p, "hung");
      return;
    }
    if (stamps.isEmpty() || checkingFiles) {
      return;
    }
    checkingFiles = true;
    Map<Path, Stamp> was = stamps;
    PluginProcess checked = current;
    vertx.executeBlocking(() -> stat(new ArrayList<>(was.keySet())), false).onComplete(ar -> {
      checkingFiles = false;
      if (ar.failed() || state != State.RUNNING || current != checked || Objects.equals(ar.result(), was)) {
        return;
      }
      LOG.info("plugin " + name + ": " + was.keySet() + " changed, starting the new version (pid " + checked.pid()
          + " finishes what it holds)");
      retire(checked);
      current = null;
      restartReason = "changed";
      spawn();
    });
  }

  /** Stops sending to {@code p}; it answers what it holds, gets EOF on stdin and is killed when done. */
  private void retire(PluginProcess p) {
    p.closeInput();
    if (p.pendingCount() == 0) {
      p.kill();
      retiring.add(p);
      return;
    }
    retiring.add(p);
    long grace = Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.max(maxTimeoutNanos, MIN_HUNG_NANOS)));
    vertx.setTimer(grace, id -> {
      if (retiring.contains(p)) {
        p.kill();
      }
    });
  }

  /**
   * No tenant names this command any more (a reload): what waits is failed, the process finishes
   * what it holds and is stopped.
   */
  void retire() {
    if (state == State.CLOSED) {
      return;
    }
    state = State.CLOSED;
    stopTimers();
    for (PluginRequest r : new ArrayList<>(waiting)) {
      fail(r, "error", "error: the write policy is not available, try again later");
    }
    waiting.clear();
    if (current != null) {
      LOG.info("plugin " + name + " (pid " + current.pid() + ") is no longer configured: stopping it");
      retire(current);
      current = null;
    }
  }

  /** The policy node stops: every process is killed, nothing more is answered. */
  void close() {
    state = State.CLOSED;
    stopTimers();
    List<PluginRequest> dropped = new ArrayList<>(waiting);
    waiting.clear();
    if (current != null) {
      dropped.addAll(current.drain());
      current.kill();
      current = null;
    }
    for (PluginProcess p : retiring) {
      dropped.addAll(p.drain());
      p.kill();
    }
    retiring.clear();
    for (PluginRequest r : dropped) {
      r.done = true;
      if (r.timer >= 0) {
        vertx.cancelTimer(r.timer);
      }
    }
  }

  private void stopTimers() {
    vertx.cancelTimer(tick);
    if (restartTimer >= 0) {
      vertx.cancelTimer(restartTimer);
      restartTimer = -1;
    }
  }
}
