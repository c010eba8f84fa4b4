package dev.cairn.bench.load;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * One scenario's figures: printed as a human line plus {@code RESULT <json>}, and appended to
 * {@code --result-file} (JSON lines) for the Markdown summary. {@code errors} non-empty = failed run.
 * {@code --relay-name NAME} (run.sh: "Cairn", "strfry", ...) is recorded as {@code relay}: the summary
 * puts the relays of one run side by side.
 */
public final class Result {
  private final JsonObject json = new JsonObject();
  private final List<String> errors = new ArrayList<>();

  public Result(String scenario, String tool) {
    json.put("scenario", scenario).put("tool", tool).put("at", System.currentTimeMillis() / 1000);
  }

  public Result put(String key, Object value) {
    if (value instanceof Double d && (d.isNaN() || d.isInfinite())) value = null;
    json.put(key, value);
    return this;
  }

  public Result latency(String prefix, Latencies.Snapshot s) {
    put(prefix + "_p50_ms", round(s.pctMs(50)));
    put(prefix + "_p90_ms", round(s.pctMs(90)));
    put(prefix + "_p99_ms", round(s.pctMs(99)));
    put(prefix + "_max_ms", round(s.pctMs(100)));
    put(prefix + "_n", s.count());
    return this;
  }

  public void error(String message) {
    errors.add(message);
  }

  public List<String> errors() {
    return List.copyOf(errors);
  }

  public JsonObject json() {
    return json;
  }

  public boolean failed() {
    return !errors.isEmpty();
  }

  public static Double round(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) return null;
    return Math.round(v * 100.0) / 100.0;
  }

  /** Prints and records; returns the process exit status (0 ok, 1 failed). */
  public int finish(Args args) {
    String relay = args.str("relay-name", null);
    if (relay != null && !json.containsKey("relay")) json.put("relay", relay);
    json.put("ok", errors.isEmpty());
    if (!errors.isEmpty()) json.put("errors", new io.vertx.core.json.JsonArray(new ArrayList<Object>(errors)));
    String line = json.encode();
    System.out.println("RESULT " + line);
    for (String e : errors) System.err.println("FAILED " + json.getString("scenario") + ": " + e);
    String file = args.str("result-file", null);
    if (file != null) {
      try {
        Files.writeString(Path.of(file), line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
      } catch (IOException ex) {
        System.err.println("cannot write " + file + ": " + ex);
        return 1;
      }
    }
    return errors.isEmpty() ? 0 : 1;
  }
}
