package dev.cairn.config;

import java.time.Instant;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** One line per log record on stderr; JSON lines when {@code log.json=true}. */
public final class LogSetup {
  private LogSetup() {}

  public static void apply(CairnConfig config) {
    Logger root = Logger.getLogger("");
    for (Handler h : root.getHandlers()) {
      root.removeHandler(h);
    }
    ConsoleHandler handler = new ConsoleHandler();
    handler.setFormatter(config.logJson() ? new JsonFormatter() : new LineFormatter());
    Level level = Level.parse(config.raw().getJsonObject("log").getString("level", "INFO"));
    handler.setLevel(level);
    root.setLevel(level);
    root.addHandler(handler);
  }

  static final class LineFormatter extends Formatter {
    @Override
    public String format(LogRecord r) {
      String thrown = r.getThrown() == null ? "" : " | " + describe(r.getThrown());
      return Instant.ofEpochMilli(r.getMillis()) + " " + r.getLevel() + " " + shortName(r.getLoggerName()) + " - "
          + formatMessage(r) + thrown + System.lineSeparator();
    }
  }

  static final class JsonFormatter extends Formatter {
    @Override
    public String format(LogRecord r) {
      io.vertx.core.json.JsonObject j = new io.vertx.core.json.JsonObject()
          .put("ts", Instant.ofEpochMilli(r.getMillis()).toString())
          .put("level", r.getLevel().getName())
          .put("logger", r.getLoggerName())
          .put("msg", formatMessage(r));
      if (r.getThrown() != null) {
        j.put("error", describe(r.getThrown()));
      }
      return j.encode() + System.lineSeparator();
    }
  }

  /**
   * A throwable and its causes, one after the other: the wrapper says what failed (a commit, a
   * checkpoint), the innermost cause says why (say SQLite's "database or disk is full"), and an
   * operator needs both on the one line.
   */
  static String describe(Throwable t) {
    StringBuilder b = new StringBuilder(t.toString());
    java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    seen.add(t);
    for (Throwable c = t.getCause(); c != null && seen.add(c); c = c.getCause()) {
      b.append(" | caused by ").append(c);
    }
    return b.toString();
  }

  private static String shortName(String name) {
    return name == null ? "" : name.substring(name.lastIndexOf('.') + 1);
  }
}
