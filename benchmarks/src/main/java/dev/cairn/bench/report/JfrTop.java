package dev.cairn.bench.report;

import dev.cairn.bench.load.Args;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the relay's CPU went, from a JFR recording (run.sh --jfr starts Cairn with the profile
 * settings): on-CPU Java samples (jdk.ExecutionSample) plus JNI samples whose top frame is
 * libsecp256k1 or SQLite (jdk.NativeMethodSample; other native samples are threads waiting in
 * epoll/accept, not work). Prints the cost by category, CPU by relay thread (jdk.ThreadCPULoad), the
 * top self frames and the top Cairn methods by inclusive samples, as Markdown. Use
 * method-profiling=normal: Java and native samples then share one 20 ms period. JFR takes at most one
 * native sample per period for the whole JVM, so JNI work (SQLite, libsecp256k1) is under-counted in the
 * sample tables; the per-thread CPU table has no such bias.
 *
 * <pre>JfrTop --file relay.jfr [--top 12] [--events N | --results results.jsonl [--relay NAME] [--scenario S]]</pre>
 * With the number of events stored during the recording (--events, or the sum of "accepted" in a
 * run's RESULT lines), the categories also show samples per 1000 events.
 */
public final class JfrTop {
  public static void main(String[] argv) throws Exception {
    Args a = new Args(argv);
    int top = a.integer("top", 12);
    long events = a.lng("events", 0);
    String resultsFile = a.str("results", null);
    String relay = a.str("relay", null); // only this relay's RESULT lines (run.sh: the recorded Cairn)
    String scenario = a.str("scenario", null); // only this scenario's (the one the recording covers)
    if (events == 0 && resultsFile != null && java.nio.file.Files.exists(Path.of(resultsFile))) {
      for (String line : java.nio.file.Files.readAllLines(Path.of(resultsFile))) {
        if (line.isBlank()) continue;
        io.vertx.core.json.JsonObject r = new io.vertx.core.json.JsonObject(line);
        if (relay != null && !relay.equals(r.getString("relay", relay))) continue;
        if (scenario != null && !scenario.equals(r.getString("scenario"))) continue;
        events += r.getLong("accepted", 0L);
      }
    }
    Map<String, Long> self = new HashMap<>();
    Map<String, Long> inclusive = new HashMap<>();
    Map<String, Long> categories = new LinkedHashMap<>();
    long total = 0;
    Map<String, Double> threadCpu = new HashMap<>();
    Set<Long> rounds = new HashSet<>();
    for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(a.required("file")))) {
      String type = e.getEventType().getName();
      if (type.equals("jdk.ThreadCPULoad") && e.getThread("eventThread") != null) {
        String t = e.getThread("eventThread").getJavaName();
        String group = t == null ? "?" : t.replaceAll("[-#]?\\d*$", "");
        threadCpu.merge(group, (double) e.getFloat("user") + e.getFloat("system"), Double::sum);
        rounds.add(e.getStartTime().getEpochSecond() / 5);
        continue;
      }
      boolean nativeSample = type.equals("jdk.NativeMethodSample");
      if (!nativeSample && !type.equals("jdk.ExecutionSample")) continue;
      RecordedStackTrace st = e.getStackTrace();
      if (st == null || st.getFrames().isEmpty()) continue;
      List<RecordedFrame> frames = st.getFrames();
      String topFrame = name(frames.get(0));
      if (nativeSample && !(topFrame.startsWith("fr.acinq") || topFrame.startsWith("org.sqlite"))) continue;
      total++;
      self.merge(topFrame, 1L, Long::sum);
      categories.merge(category(frames), 1L, Long::sum);
      Set<String> seen = new HashSet<>();
      for (RecordedFrame f : frames) {
        String n = name(f);
        if (n.startsWith("dev.cairn.") && seen.add(n)) inclusive.merge(n, 1L, Long::sum);
      }
    }
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%d CPU samples (Java on-CPU + libsecp256k1/SQLite JNI)%s.%n%n", total,
        events > 0 ? ", " + events + " events stored during the recording" : ""));
    sb.append("| category (by the innermost recognised frame) | samples | share |");
    if (events > 0) sb.append(" samples per 1000 events |");
    sb.append("\n| --- | ---: | ---: |").append(events > 0 ? " ---: |" : "").append('\n');
    for (Map.Entry<String, Long> c : sorted(categories, 100)) {
      sb.append(String.format(Locale.ROOT, "| %s | %d | %.1f%% |", c.getKey(), c.getValue(), 100.0 * c.getValue() / total));
      if (events > 0) sb.append(String.format(Locale.ROOT, " %.2f |", 1000.0 * c.getValue() / events));
      sb.append('\n');
    }
    if (!rounds.isEmpty()) {
      int cores = Runtime.getRuntime().availableProcessors();
      sb.append("\n| relay threads (jdk.ThreadCPULoad, mean over the recording) | CPU, % of the machine | cores |\n")
          .append("| --- | ---: | ---: |\n");
      for (Map.Entry<String, Double> t : threadCpu.entrySet().stream()
          .sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(top).toList()) {
        double pct = 100.0 * t.getValue() / rounds.size();
        if (pct < 0.5) continue;
        sb.append(String.format(Locale.ROOT, "| %s | %.1f%% | %.2f |%n", t.getKey(), pct, pct / 100 * cores));
      }
    }
    sb.append("\n| top self frames | samples | share |\n| --- | ---: | ---: |\n");
    for (Map.Entry<String, Long> s : sorted(self, top)) {
      sb.append(String.format(Locale.ROOT, "| `%s` | %d | %.1f%% |%n", s.getKey(), s.getValue(), 100.0 * s.getValue() / total));
    }
    sb.append("\n| Cairn methods, inclusive | samples | share |\n| --- | ---: | ---: |\n");
    for (Map.Entry<String, Long> s : sorted(inclusive, top)) {
      sb.append(String.format(Locale.ROOT, "| `%s` | %d | %.1f%% |%n", s.getKey(), s.getValue(), 100.0 * s.getValue() / total));
    }
    System.out.println(sb);
  }

  private static List<Map.Entry<String, Long>> sorted(Map<String, Long> m, int n) {
    return m.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(n).toList();
  }

  private static String name(RecordedFrame f) {
    if (f.getMethod() == null) return "?";
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  /** A coarse cost category from the innermost frame that names one. */
  static String category(List<RecordedFrame> frames) {
    for (RecordedFrame f : frames) {
      String n = name(f);
      if (n.startsWith("fr.acinq")) return "BIP-340 verify (libsecp256k1 JNI)";
      if (n.startsWith("org.sqlite") || n.startsWith("dev.cairn.store")) return "SQLite store (dev.cairn.store + sqlite-jdbc)";
      if (n.startsWith("sun.security.provider") || n.startsWith("java.security.MessageDigest")
          || n.startsWith("dev.cairn.nostr.EventId")) return "event id: canonical form + SHA-256";
      if (n.startsWith("com.fasterxml.jackson") || n.startsWith("dev.cairn.nostr.EventParser")
          || n.startsWith("dev.cairn.nostr.ClientMessageParser") || n.startsWith("dev.cairn.nostr.FilterParser"))
        return "JSON parsing";
      if (n.startsWith("io.netty.handler.codec.http.websocketx") || n.startsWith("io.vertx.core.http"))
        return "WebSocket framing (Vert.x/Netty)";
      if (n.startsWith("io.vertx.core.eventbus") || n.startsWith("dev.cairn.tree")) return "event bus / tree channels";
      if (n.startsWith("io.netty") || n.startsWith("sun.nio")) return "network I/O (Netty)";
      if (n.startsWith("io.micrometer")) return "metrics (Micrometer)";
      if (n.startsWith("dev.cairn.network")) return "network-manager / conn-workers";
      if (n.startsWith("dev.cairn")) return "other Cairn code";
    }
    String first = name(frames.get(0));
    if (first.startsWith("java.lang.invoke") || first.startsWith("jdk.internal")) return "JDK internals";
    if (first.startsWith("java.util") || first.startsWith("java.lang")) return "JDK collections/strings (no Cairn frame)";
    return "other";
  }
}
