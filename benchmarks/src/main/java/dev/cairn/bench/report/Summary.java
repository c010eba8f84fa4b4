package dev.cairn.bench.report;

import dev.cairn.bench.load.Args;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns the RESULT lines of a run (results.jsonl) and JMH's JSON into the Markdown summary written
 * to benchmarks/results/, and prints the headline figures.
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
      md += "## Relay CPU profile (JFR, the whole run)\n\n" + Files.readString(Path.of(append)) + "\n";
    }
    Files.writeString(Path.of(a.required("out")), md, StandardCharsets.UTF_8);
    System.out.println(md);
  }

  static String render(List<JsonObject> results, JsonArray jmh, JsonObject m) {
    StringBuilder sb = new StringBuilder();
    sb.append("# Cairn benchmarks — ").append(m.getString("date", "")).append(" (").append(m.getString("mode", ""))
        .append(")\n\n");
    sb.append("| machine | |\n| --- | --- |\n");
    for (String k : List.of("commit", "cpu", "cores", "memory", "os", "jvm", "relay", "relay_jvm", "relay_url",
        "mode", "scenarios", "load_average", "status")) {
      if (m.containsKey(k)) sb.append("| ").append(k).append(" | ").append(m.getValue(k)).append(" |\n");
    }
    sb.append('\n');

    boolean anyFailed = false;
    List<JsonObject> ingest = pick(results, "ingest");
    if (!ingest.isEmpty()) {
      sb.append("## ingest — EVENT→OK, pre-signed events\n\n")
          .append("| tool | connections | window | events OK'd/s | accepted/s | accepted | duplicate | p50 ms | p90 ms | p99 ms | max ms | seconds | ok |\n")
          .append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
      for (JsonObject r : ingest) {
        sb.append(row(r.getString("tool"), r.getValue("connections"), r.getValue("window"), r.getValue("oks_per_s"),
            r.getValue("accepted_per_s"), r.getValue("accepted"), r.getValue("duplicate"), r.getValue("event_ok_p50_ms"),
            r.getValue("event_ok_p90_ms"), r.getValue("event_ok_p99_ms"), r.getValue("event_ok_max_ms"),
            r.getValue("seconds"), okCell(r)));
      }
      sb.append('\n');
    }
    List<JsonObject> fanout = pick(results, "fanout");
    if (!fanout.isEmpty()) {
      sb.append("## fanout — publish→delivery\n\n")
          .append("| subscribers | publishers | target rate/s | publish rate/s | deliveries | expected | deliveries/s | p50 ms | p90 ms | p99 ms | max ms | publish OK p50 ms | ok |\n")
          .append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
      for (JsonObject r : fanout) {
        sb.append(row(r.getValue("subscribers"), r.getValue("publishers"), r.getValue("target_rate"),
            r.getValue("publish_rate"), r.getValue("deliveries"), r.getValue("expected_deliveries"),
            r.getValue("deliveries_per_s"), r.getValue("delivery_p50_ms"), r.getValue("delivery_p90_ms"),
            r.getValue("delivery_p99_ms"), r.getValue("delivery_max_ms"), r.getValue("publish_ok_p50_ms"), okCell(r)));
      }
      sb.append('\n');
    }
    List<JsonObject> preload = pick(results, "preload");
    List<JsonObject> query = pick(results, "query");
    if (!query.isEmpty() || !preload.isEmpty()) {
      sb.append("## query — REQ→EOSE\n\n");
      for (JsonObject p : preload) {
        sb.append(String.format(Locale.ROOT, "Store preloaded with %s events (%s accepted, %s duplicate) at %s events/s.%s%n%n",
            p.getValue("events_sent"), p.getValue("accepted"), p.getValue("duplicate"), p.getValue("oks_per_s"),
            p.getBoolean("ok", false) ? "" : " **PRELOAD FAILED**: " + p.getValue("errors")));
      }
      if (!query.isEmpty()) {
        sb.append("| type | users | REQs | events/REQ | p50 ms | p90 ms | p99 ms | max ms | ok |\n")
            .append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
        for (JsonObject r : query) {
          if ("all".equals(r.getString("type"))) continue;
          sb.append(row(r.getString("type"), r.getValue("users"), r.getValue("reqs"), r.getValue("events_per_req"),
              r.getValue("req_eose_p50_ms"), r.getValue("req_eose_p90_ms"), r.getValue("req_eose_p99_ms"),
              r.getValue("req_eose_max_ms"), okCell(r)));
        }
        for (JsonObject r : query) {
          if ("all".equals(r.getString("type"))) {
            sb.append(String.format(Locale.ROOT, "%nAll types: %s REQs in %s s = %s REQ/s. %s%n", r.getValue("reqs"),
                r.getValue("seconds"), r.getValue("reqs_per_s"), r.getBoolean("ok", false) ? "" : "**FAILED**: " + r.getValue("errors")));
          }
        }
        sb.append('\n');
      }
    }
    List<JsonObject> idle = pick(results, "idle");
    if (!idle.isEmpty()) {
      sb.append("## idle — memory per subscribed idle connection\n\n")
          .append("| connections | open s | RSS before MB | RSS after MB | RSS KB/conn | heap before MB | heap after MB | heap KB/conn | ok |\n")
          .append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
      for (JsonObject r : idle) {
        sb.append(row(r.getValue("connections"), r.getValue("open_seconds"), r.getValue("rss_before_mb"),
            r.getValue("rss_after_mb"), r.getValue("rss_per_conn_kb"), r.getValue("heap_before_mb"),
            r.getValue("heap_after_mb"), r.getValue("heap_per_conn_kb"), okCell(r)));
      }
      sb.append('\n');
    }

    Double ceiling = null;
    if (!jmh.isEmpty()) {
      sb.append("## JMH — Cairn internals\n\n| benchmark | params | threads | score | error | unit |\n| --- | --- | ---: | ---: | ---: | --- |\n");
      for (Object o : jmh) {
        JsonObject b = (JsonObject) o;
        JsonObject pm = b.getJsonObject("primaryMetric");
        String name = b.getString("benchmark").replace("dev.cairn.bench.jmh.", "").replace("dev.cairn.network.", "");
        JsonObject params = b.getJsonObject("params", new JsonObject());
        double score = pm.getDouble("score");
        sb.append(row(name, params.isEmpty() ? "" : params.encode().replace("|", "\\|"), b.getValue("threads"),
            String.format(Locale.ROOT, "%.1f", score), fmtErr(pm.getValue("scoreError")), pm.getString("scoreUnit")));
        if (name.endsWith("VerifyBench.bareLibsecp256k1") && b.getInteger("threads", 1) == m.getInteger("cores", 1)) {
          ceiling = "ops/s".equals(pm.getString("scoreUnit")) ? score : null;
        }
      }
      sb.append('\n');
    }
    double bestIngest = ingest.stream().mapToDouble(r -> r.getDouble("accepted_per_s", 0.0)).max().orElse(0);
    if (ceiling != null && bestIngest > 0) {
      sb.append(String.format(Locale.ROOT, "## Ingest vs. the verify ceiling%n%nBest ingest %.0f accepted events/s; "
          + "bare libsecp256k1 verifySchnorr on all %d cores %.0f verifies/s: Cairn ingests at **%.1f%%** of the "
          + "ceiling (ratio %.3f).%n%n", bestIngest, m.getInteger("cores", 1), ceiling, 100 * bestIngest / ceiling,
          bestIngest / ceiling));
    }
    List<String> failures = new ArrayList<>();
    for (JsonObject r : results) {
      if (!r.getBoolean("ok", false)) {
        anyFailed = true;
        failures.add(r.getString("scenario") + " (" + r.getString("tool") + "): " + r.getValue("errors"));
      }
    }
    if (anyFailed) {
      sb.append("## Failures\n\n");
      for (String f : failures) sb.append("- ").append(f.replace("|", "\\|")).append('\n');
      sb.append('\n');
    }
    return sb.toString();
  }

  private static List<JsonObject> pick(List<JsonObject> results, String scenario) {
    return results.stream().filter(r -> scenario.equals(r.getString("scenario"))).toList();
  }

  private static String okCell(JsonObject r) {
    return r.getBoolean("ok", false) ? "yes" : "**FAILED**";
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
