package dev.cairn.bench.report;

import dev.cairn.bench.load.Args;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Turns the RESULT lines of a run (results.jsonl) and JMH's JSON into the Markdown summary written
 * to benchmarks/results/, and prints it. Every figure is one row with a column per relay of the run
 * (the {@code relay} field of the RESULT lines, in the order of {@code relays} in machine.json: Cairn
 * first, then the peer) and, with two relays, the ratio first/second: for throughput above 1 means Cairn
 * did better; for latency and memory the plain ratio is printed too, and there lower is better.
 *
 * <pre>Summary --results results.jsonl [--jmh a.json,b.json] --machine machine.json [--append jfr.md] --out file.md</pre>
 */
public final class Summary {
  public static void main(String[] argv) throws Exception {
    Args a = new Args(argv);
    List<JsonObject> results = new ArrayList<>();
    Path rf = Path.of(a.required("results"));
    if (Files.exists(rf)) {
      for (String line : Files.readAllLines(rf, StandardCharsets.UTF_8)) {
        if (!line.isBlank()) results.add(new JsonObject(line));
      }
    }
    JsonArray jmh = new JsonArray();
    for (String jmhFile : a.str("jmh", "").split(",")) {
      if (!jmhFile.isBlank() && Files.exists(Path.of(jmhFile)) && Files.size(Path.of(jmhFile)) > 0) {
        jmh.addAll(new JsonArray(Files.readString(Path.of(jmhFile))));
      }
    }
    JsonObject machine = new JsonObject(Files.readString(Path.of(a.required("machine"))));
    String md = render(results, jmh, machine);
    String append = a.str("append", null);
    if (append != null && Files.exists(Path.of(append)) && Files.size(Path.of(append)) > 0) {
      md += "## Cairn CPU profile (JFR, the ingest scenario)\n\n" + Files.readString(Path.of(append)) + "\n";
    }
    Files.writeString(Path.of(a.required("out")), md, StandardCharsets.UTF_8);
    System.out.println(md);
  }

  /** Which way a figure is better; INFO figures get a ratio but no verdict. */
  enum Better { HIGHER, LOWER, INFO }

  record Figure(String label, Function<JsonObject, Object> value, Better better) {}

  static Figure f(String label, String key, Better b) {
    return new Figure(label, r -> r.getValue(key), b);
  }

  static final String DEFAULT_RELAY = "relay";

  static String relayOf(JsonObject r) {
    return r.getString("relay", DEFAULT_RELAY);
  }

  /** The row key of a result inside its scenario: its level, else something from its parameters. */
  static String levelOf(JsonObject r) {
    String level = r.getString("level");
    if (level != null) {
      return "gatling".equals(r.getString("tool")) ? "gatling " + level : level;
    }
    if (r.containsKey("type")) return r.getString("type");
    if (r.containsKey("connections")) {
      return r.getString("tool", "") + " c=" + r.getValue("connections") + (r.containsKey("window") ? " w=" + r.getValue("window") : "");
    }
    if (r.containsKey("subscribers")) return r.getValue("subscribers") + " subscribers";
    return "";
  }

  static String render(List<JsonObject> results, JsonArray jmh, JsonObject m) {
    List<String> relays = new ArrayList<>();
    if (m.getJsonArray("relays") != null) {
      for (Object o : m.getJsonArray("relays")) relays.add((String) o);
    }
    LinkedHashSet<String> seen = new LinkedHashSet<>(relays);
    for (JsonObject r : results) seen.add(relayOf(r));
    relays = new ArrayList<>(seen);
    if (relays.isEmpty()) relays.add(DEFAULT_RELAY);
    Double ceiling = verifyCeiling(jmh, m);

    StringBuilder sb = new StringBuilder();
    sb.append("# Cairn benchmarks — ").append(m.getString("date", "")).append(" (").append(m.getString("mode", ""))
        .append(")\n\n");
    sb.append("| machine | |\n| --- | --- |\n");
    for (String k : List.of("commit", "cpu", "cores", "memory", "os", "jvm", "relay", "peer", "relay_url", "peer_url",
        "mode", "scenarios", "load_average", "status")) {
      if (m.containsKey(k)) sb.append("| ").append(k).append(" | ").append(cell(m.getValue(k))).append(" |\n");
    }
    sb.append('\n');
    if (relays.size() >= 2) {
      sb.append(String.format(Locale.ROOT, "Ratios are %s/%s. Throughput (higher is better): a ratio above 1 means %s "
          + "did better. Latency and memory (lower is better): the plain ratio %s/%s, below 1 means %s did better. "
          + "Each relay ran every scenario on a fresh, empty store, one after the other on the same machine.%n%n",
          relays.get(0), relays.get(1), relays.get(0), relays.get(0), relays.get(1), relays.get(0)));
    }

    // ingest
    List<Figure> ingestFigures = new ArrayList<>(List.of(
        f("accepted events/s", "accepted_per_s", Better.HIGHER),
        f("EVENT→OK p50 ms", "event_ok_p50_ms", Better.LOWER),
        f("EVENT→OK p90 ms", "event_ok_p90_ms", Better.LOWER),
        f("EVENT→OK p99 ms", "event_ok_p99_ms", Better.LOWER),
        f("EVENT→OK max ms", "event_ok_max_ms", Better.LOWER),
        f("events accepted", "accepted", Better.INFO),
        f("relay CPU µs per accepted event", "relay_cpu_us_per_event", Better.LOWER),
        f("seconds", "seconds", Better.INFO)));
    if (ceiling != null) {
      ingestFigures.add(1, new Figure("% of the libsecp256k1 verify ceiling", r -> {
        Double v = r.getDouble("accepted_per_s");
        return v == null ? null : 100.0 * v / ceiling;
      }, Better.HIGHER));
    }
    section(sb, results, relays, "ingest", "ingest — pre-signed events, C connections × W EVENTs in flight",
        ingestFigures, null);
    if (ceiling != null && !pick(results, "ingest").isEmpty()) {
      sb.append(String.format(Locale.ROOT, "Verify ceiling: bare libsecp256k1 `verifySchnorr` on all %d cores (JMH "
          + "`VerifyBench.bareLibsecp256k1`) = %,.0f verifies/s. Best ingest:", m.getInteger("cores", 1), ceiling));
      for (String relay : relays) {
        double best = pick(results, "ingest").stream().filter(r -> relay.equals(relayOf(r)))
            .mapToDouble(r -> r.getDouble("accepted_per_s", 0.0)).max().orElse(0);
        if (best > 0) sb.append(String.format(Locale.ROOT, " %s %,.0f events/s = **%.1f%%** of the ceiling;", relay, best,
            100 * best / ceiling));
      }
      sb.setLength(sb.length() - 1);
      sb.append(".\n\n");
    }

    // fanout
    section(sb, results, relays, "fanout", "fanout — subscribers × broad filter, publishers at a fixed offered rate",
        List.of(
            f("subscribers", "subscribers", Better.INFO),
            f("offered events/s", "offered_rate", Better.INFO),
            f("events offered", "events_offered", Better.INFO),
            f("events OK'd", "events_okd", Better.HIGHER),
            f("EVENTs without OK within 60 s", "no_ok_within_timeout", Better.LOWER),
            f("publisher EVENT→OK p50 ms", "publish_ok_p50_ms", Better.LOWER),
            f("publisher EVENT→OK p99 ms", "publish_ok_p99_ms", Better.LOWER),
            f("deliveries/s", "deliveries_per_s", Better.HIGHER),
            f("publish→delivery p50 ms", "delivery_p50_ms", Better.LOWER),
            f("publish→delivery p99 ms", "delivery_p99_ms", Better.LOWER),
            f("deliveries", "deliveries", Better.HIGHER),
            f("subscribers closed by the relay", "subscribers_closed", Better.INFO),
            f("missed on connected subscribers", "missed", Better.INFO),
            f("duplicated on connected subscribers", "duplicated", Better.INFO),
            f("relay RSS at start MB", "rss_start_mb", Better.LOWER),
            f("relay RSS max MB", "rss_max_mb", Better.LOWER),
            f("relay CPU µs per delivery", "relay_cpu_us_per_delivery", Better.LOWER),
            f("drain s", "drain_seconds", Better.INFO),
            f("drain cut off while deliveries still arrived", "drain_cut_off", Better.INFO)),
        r -> r.getString("close_reasons") == null ? null : "closed subscribers: " + r.getString("close_reasons"));

    // query
    List<JsonObject> preload = pick(results, "preload");
    List<JsonObject> query = new ArrayList<>(pick(results, "query"));
    query.sort((x, y) -> Integer.compare(queryOrder(levelOf(x)), queryOrder(levelOf(y))));
    List<Figure> queryFigures = List.of(
        f("queries/s", "reqs_per_s", Better.HIGHER),
        f("REQ→EOSE p50 ms", "req_eose_p50_ms", Better.LOWER),
        f("REQ→EOSE p99 ms", "req_eose_p99_ms", Better.LOWER),
        f("relay CPU ms per query", "relay_cpu_ms_per_query", Better.LOWER),
        f("events per REQ", "events_per_req", Better.INFO),
        f("REQs", "reqs", Better.INFO));
    section(sb, query, relays, "query", "query — closed loop, REQ→EOSE", queryFigures, null);
    List<JsonObject> clientQueries = new ArrayList<>(pick(results, "query-clients"));
    clientQueries.sort((x, y) -> Integer.compare(queryOrder(levelOf(x)), queryOrder(levelOf(y))));
    section(sb, clientQueries, relays, "query-clients",
        "query-clients — the same store, what client apps ask (several authors or tag values, several kinds)",
        queryFigures, null);
    if (!preload.isEmpty()) {
      sb.append("Preloads (over WebSocket, 8 connections × 64 in flight, before the query and sse scenarios):");
      for (JsonObject p : preload) {
        sb.append(String.format(Locale.ROOT, " %s %s: %s events at %s events/s%s;", relayOf(p),
            p.getString("level", p.getString("scenario")), p.getValue("events_sent"), num(p.getValue("oks_per_s")),
            p.getBoolean("ok", false) ? "" : " **FAILED** " + p.getValue("errors")));
      }
      sb.setLength(sb.length() - 1);
      sb.append(".\n\n");
    }

    // idle
    section(sb, results, relays, "idle", "idle — memory per subscribed idle connection", List.of(
        f("RSS per connection KB", "rss_per_conn_kb", Better.LOWER),
        f("RSS before MB", "rss_before_mb", Better.LOWER),
        f("RSS after MB", "rss_after_mb", Better.LOWER),
        f("heap per connection KB (JVM, /metrics)", "heap_per_conn_kb", Better.LOWER),
        f("seconds to open and subscribe", "open_seconds", Better.LOWER)),
        null);

    // Cairn only
    section(sb, results, relays, "sse", "sse — change feed replay (Cairn only: the peer has no SSE)", List.of(
        f("events/s", "events_per_s", Better.HIGHER),
        f("events replayed", "stored_frames", Better.INFO),
        f("seconds", "seconds", Better.LOWER),
        f("first frame ms", "first_frame_ms", Better.LOWER),
        f("MB/s", "mb_per_s", Better.HIGHER)),
        null);
    section(sb, results, relays, "outbox", "outbox — commit→JetStream (Cairn only, outbox.backend=nats)", List.of(
        f("offered events/s", "offered_rate", Better.INFO),
        f("accepted events/s", "accepted_per_s", Better.HIGHER),
        f("JetStream messages/s", "messages_per_s", Better.HIGHER),
        f("messages", "messages", Better.INFO),
        f("commit→JetStream p50 ms", "commit_js_p50_ms", Better.LOWER),
        f("commit→JetStream p99 ms", "commit_js_p99_ms", Better.LOWER),
        f("commit→JetStream max ms", "commit_js_max_ms", Better.LOWER),
        f("EVENT→OK p50 ms", "publish_ok_p50_ms", Better.LOWER),
        f("EVENT→OK p99 ms", "publish_ok_p99_ms", Better.LOWER)),
        null);

    if (!jmh.isEmpty()) {
      sb.append("## JMH — Cairn internals\n\n| benchmark | params | threads | score | error | unit |\n| --- | --- | ---: | ---: | ---: | --- |\n");
      for (Object o : jmh) {
        JsonObject b = (JsonObject) o;
        JsonObject pm = b.getJsonObject("primaryMetric");
        String name = b.getString("benchmark").replace("dev.cairn.bench.jmh.", "").replace("dev.cairn.network.", "");
        JsonObject params = b.getJsonObject("params", new JsonObject());
        sb.append(row(name, params.isEmpty() ? "" : params.encode().replace("|", "\\|"), b.getValue("threads"),
            String.format(Locale.ROOT, "%.1f", pm.getDouble("score")), fmtErr(pm.getValue("scoreError")),
            pm.getString("scoreUnit")));
      }
      sb.append('\n');
    }

    List<String> failures = new ArrayList<>();
    for (JsonObject r : results) {
      if (!r.getBoolean("ok", false)) {
        failures.add(r.getString("scenario") + " " + levelOf(r) + " on " + relayOf(r) + " (" + r.getString("tool") + "): "
            + r.getValue("errors"));
      }
    }
    if (!failures.isEmpty()) {
      sb.append("## Failures\n\n");
      for (String f : failures) sb.append("- ").append(f.replace("|", "\\|")).append('\n');
      sb.append('\n');
    }
    return sb.toString();
  }

  static Double verifyCeiling(JsonArray jmh, JsonObject m) {
    Double ceiling = null;
    for (Object o : jmh) {
      JsonObject b = (JsonObject) o;
      JsonObject pm = b.getJsonObject("primaryMetric");
      if (b.getString("benchmark", "").endsWith("VerifyBench.bareLibsecp256k1")
          && b.getInteger("threads", 1).equals(m.getInteger("cores", 1)) && "ops/s".equals(pm.getString("scoreUnit"))) {
        ceiling = pm.getDouble("score");
      }
    }
    return ceiling;
  }

  private static int queryOrder(String level) {
    int i = List.of("all", "author", "kinds+since", "tag", "ids", "timeline", "reactions", "mentions", "hashtags",
        "global").indexOf(level);
    return i < 0 ? 99 : i;
  }

  /**
   * One scenario: a table with a row per (level, figure) and a column per relay, the ratio of the
   * first two relays, which way is better; then a "checks" row per level (passed / FAILED) and notes.
   */
  static void section(StringBuilder sb, List<JsonObject> results, List<String> relays, String scenario, String title,
      List<Figure> figures, Function<JsonObject, String> note) {
    List<JsonObject> rs = pick(results, scenario);
    if (rs.isEmpty()) return;
    // level -> relay -> result (the last one wins)
    Map<String, Map<String, JsonObject>> byLevel = new LinkedHashMap<>();
    for (JsonObject r : rs) byLevel.computeIfAbsent(levelOf(r), k -> new LinkedHashMap<>()).put(relayOf(r), r);
    List<String> cols = new ArrayList<>();
    for (String relay : relays) {
      if (rs.stream().anyMatch(r -> relay.equals(relayOf(r)))) cols.add(relay);
    }
    boolean ratio = cols.size() >= 2;
    sb.append("## ").append(title).append("\n\n| level | figure |");
    for (String c : cols) sb.append(' ').append(c).append(" |");
    if (ratio) sb.append(' ').append(cols.get(0)).append('/').append(cols.get(1)).append(" | |");
    sb.append("\n| --- | --- |");
    for (int i = 0; i < cols.size(); i++) sb.append(" ---: |");
    if (ratio) sb.append(" ---: | --- |");
    sb.append('\n');
    List<String> notes = new ArrayList<>();
    for (Map.Entry<String, Map<String, JsonObject>> e : byLevel.entrySet()) {
      String level = e.getKey();
      Map<String, JsonObject> per = e.getValue();
      for (Figure fig : figures) {
        boolean any = false;
        List<Object> vals = new ArrayList<>();
        for (String c : cols) {
          JsonObject r = per.get(c);
          Object v = r == null ? null : fig.value().apply(r);
          vals.add(v);
          any |= v != null;
        }
        if (!any) continue;
        sb.append("| ").append(level).append(" | ").append(fig.label()).append(" |");
        for (Object v : vals) sb.append(' ').append(num(v)).append(" |");
        if (ratio) {
          Double x = asDouble(vals.get(0));
          Double y = asDouble(vals.get(1));
          String rt = x != null && y != null && y != 0 ? String.format(Locale.ROOT, "%.2f", x / y) : "";
          String verdict = switch (fig.better()) {
            case HIGHER -> "higher is better";
            case LOWER -> "lower is better";
            case INFO -> "";
          };
          sb.append(' ').append(rt).append(" | ").append(verdict).append(" |");
        }
        sb.append('\n');
      }
      sb.append("| ").append(level).append(" | checks |");
      for (String c : cols) {
        JsonObject r = per.get(c);
        sb.append(' ').append(r == null ? "not run" : r.getBoolean("ok", false) ? "passed" : "**FAILED**").append(" |");
      }
      if (ratio) sb.append(" | |");
      sb.append('\n');
      if (note != null) {
        for (String c : cols) {
          JsonObject r = per.get(c);
          String n = r == null ? null : note.apply(r);
          if (n != null) notes.add(level + ", " + c + ": " + n);
        }
      }
    }
    sb.append('\n');
    for (String n : notes) sb.append("- ").append(n.replace("|", "\\|")).append('\n');
    if (!notes.isEmpty()) sb.append('\n');
  }

  static List<JsonObject> pick(List<JsonObject> results, String scenario) {
    return results.stream().filter(r -> scenario.equals(r.getString("scenario"))).toList();
  }

  static Double asDouble(Object v) {
    if (v instanceof Number n) return n.doubleValue();
    return null;
  }

  static String num(Object v) {
    if (v == null) return "";
    if (v instanceof Boolean b) return b ? "yes" : "no";
    if (!(v instanceof Number n)) return cell(v);
    double d = n.doubleValue();
    if (Double.isNaN(d)) return "";
    if (d == Math.rint(d) && Math.abs(d) >= 1000) return String.format(Locale.ROOT, "%,.0f", d);
    if (d == Math.rint(d)) return String.format(Locale.ROOT, "%.0f", d);
    if (Math.abs(d) >= 1000) return String.format(Locale.ROOT, "%,.0f", d);
    if (Math.abs(d) >= 100) return String.format(Locale.ROOT, "%.0f", d);
    if (Math.abs(d) >= 10) return String.format(Locale.ROOT, "%.1f", d);
    return String.format(Locale.ROOT, "%.2f", d);
  }

  private static String cell(Object v) {
    return String.valueOf(v).replace("|", "\\|").replace("\n", " ");
  }

  private static String fmtErr(Object v) {
    if (v instanceof Number n && !Double.isNaN(n.doubleValue())) return String.format(Locale.ROOT, "%.1f", n.doubleValue());
    return "";
  }

  private static String row(Object... cells) {
    StringBuilder sb = new StringBuilder("|");
    for (Object c : cells) sb.append(' ').append(c == null ? "" : c).append(" |");
    return sb.append('\n').toString();
  }
}
