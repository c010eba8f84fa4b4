package dev.cairn.policy;

import dev.cairn.config.ConfigException;
import dev.cairn.config.ConfigSource;
import dev.cairn.config.PolicyConfig;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Reloads the policy rules without a restart: polls the {@code --config} file's mtime and size every
 * {@link #POLL_MILLIS} on the policy node's timer (or is told to on SIGHUP), re-reads and re-parses
 * it on a worker thread (never on the event loop), and hands the new rules to the node. A broken
 * file keeps the old rules and logs why, once per version of the file. Keys outside the policy
 * blocks still need a restart; a warning names them when they differ from what is running.
 */
final class RuleReloader {
  private static final Logger LOG = Logger.getLogger(RuleReloader.class.getName());
  static final long POLL_MILLIS = 2000;

  private final Vertx vertx;
  private final ConfigSource source;
  private final JsonObject running;
  private final Function<PolicyConfig, List<String>> apply;
  private final PolicyMetrics metrics;
  private final Runnable onHangup;
  /** Checks new rules further on the worker (e.g. that the Java policies they list exist); throws ConfigException. */
  private final java.util.function.Consumer<PolicyConfig> validate;
  private long timer = -1;
  private boolean checking;
  private boolean forceAgain;
  /** The file version last read (touched by the worker-thread part only, one task at a time). */
  private volatile Stamp last;

  private record Stamp(FileTime modified, long size) {}

  /** What a check read: nothing new (null rules and error), new rules, or the error that kept the old ones. */
  private record Outcome(PolicyConfig rules, List<String> restartKeys, String error) {}

  RuleReloader(Vertx vertx, ConfigSource source, JsonObject running, Function<PolicyConfig, List<String>> apply,
      PolicyMetrics metrics) {
    this(vertx, source, running, apply, metrics, rules -> { });
  }

  RuleReloader(Vertx vertx, ConfigSource source, JsonObject running, Function<PolicyConfig, List<String>> apply,
      PolicyMetrics metrics, java.util.function.Consumer<PolicyConfig> validate) {
    this.vertx = vertx;
    this.validate = validate;
    this.source = source;
    this.running = withoutPolicy(running);
    this.apply = apply;
    this.metrics = metrics;
    io.vertx.core.Context ctx = vertx.getOrCreateContext();
    this.onHangup = () -> ctx.runOnContext(v -> check(true));
  }

  /**
   * Starts polling. The first check runs at once and always reads the file: it catches an edit made
   * between the server's start and now, and brings back reloaded rules after the node was redeployed.
   */
  void start() {
    check(true);
    timer = vertx.setPeriodic(POLL_MILLIS, id -> check(false));
    ReloadSignal.register(onHangup);
  }

  void stop() {
    ReloadSignal.unregister(onHangup);
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  /** On the node's event loop; the file is touched on a worker only. */
  void check(boolean force) {
    if (checking) {
      forceAgain |= force;
      return;
    }
    checking = true;
    vertx.executeBlocking(() -> read(force)).onComplete(ar -> {
      checking = false;
      if (ar.failed()) {
        metrics.reloaded(false);
        LOG.log(Level.WARNING, "policy reload failed; keeping the current rules", ar.cause());
      } else if (ar.result() != null) {
        applyOutcome(ar.result());
      }
      if (forceAgain) {
        forceAgain = false;
        check(true);
      }
    });
  }

  /** Worker thread: stat, and read and parse only when the file changed (or when forced). */
  private Outcome read(boolean force) {
    Stamp now;
    try {
      BasicFileAttributes a = Files.readAttributes(source.file(), BasicFileAttributes.class);
      now = new Stamp(a.lastModifiedTime(), a.size());
    } catch (IOException e) {
      now = null;
    }
    if (!force && Objects.equals(now, last)) {
      return null;
    }
    last = now;
    try {
      JsonObject merged = source.read();
      PolicyConfig rules = PolicyConfig.from(merged);
      validate.accept(rules);
      return new Outcome(rules, differingKeys(running, withoutPolicy(merged)), null);
    } catch (ConfigException e) {
      return new Outcome(null, List.of(), e.getMessage());
    }
  }

  private void applyOutcome(Outcome o) {
    if (o.error() != null) {
      metrics.reloaded(false);
      LOG.warning("policy rules NOT reloaded, keeping the current ones: " + o.error());
      return;
    }
    metrics.reloaded(true);
    List<String> changes = apply.apply(o.rules());
    if (changes.isEmpty()) {
      LOG.fine("policy rules read from " + source.file() + ": no change");
    } else {
      LOG.info("policy rules reloaded from " + source.file() + ": " + String.join(" | ", changes));
    }
    if (!o.restartKeys().isEmpty()) {
      LOG.warning(source.file() + " changed " + String.join(", ", o.restartKeys())
          + ": only the policy rules (policy, tenants[].policy) reload; these need a restart");
    }
  }

  /** The config without what reloads: the top-level policy block and every tenant's policy block. */
  static JsonObject withoutPolicy(JsonObject config) {
    JsonObject c = config.copy();
    c.remove("policy");
    Object tenants = c.getValue("tenants");
    if (tenants instanceof JsonArray a) {
      JsonArray stripped = new JsonArray();
      for (Object t : a) {
        if (t instanceof JsonObject o) {
          JsonObject copy = o.copy();
          copy.remove("policy");
          stripped.add(copy);
        } else {
          stripped.add(t);
        }
      }
      c.put("tenants", stripped);
    }
    return c;
  }

  /** Top-level keys (with one level of detail) whose values differ. */
  static List<String> differingKeys(JsonObject a, JsonObject b) {
    List<String> out = new ArrayList<>();
    TreeSet<String> keys = new TreeSet<>(a.fieldNames());
    keys.addAll(b.fieldNames());
    for (String k : keys) {
      Object x = a.getValue(k);
      Object y = b.getValue(k);
      if (Objects.equals(x, y)) {
        continue;
      }
      if (x instanceof JsonObject ox && y instanceof JsonObject oy) {
        TreeSet<String> sub = new TreeSet<>(ox.fieldNames());
        sub.addAll(oy.fieldNames());
        for (String s : sub) {
          if (!Objects.equals(ox.getValue(s), oy.getValue(s))) {
            out.add(k + "." + s);
          }
        }
      } else {
        out.add(k);
      }
    }
    return out;
  }
}
