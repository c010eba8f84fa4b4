package dev.cairn.bench.load;

import io.vertx.core.Promise;
import io.vertx.core.http.WebSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * idle: N WebSocket connections, each with one subscription that matches nothing (a random author),
 * held open; reports the relay's resident memory (VmRSS from /proc/PID/status, when the relay runs here
 * and --pid is given) and heap (sum of jvm_memory_used_bytes{area="heap"} from /metrics, when served)
 * before and after, per connection. With --pid of a JVM, a full GC is requested first (jcmd PID GC.run)
 * so the figures are live data, not garbage; other relays (strfry) are read as they are. Fails if a connection or its EOSE fails, or the relay closes
 * one while idle.
 *
 * <pre>IdleLoad [--url ws://...] [--connections 10000] [--hold 10] [--pid PID] [--metrics-url http://.../metrics]</pre>
 */
public final class IdleLoad {
  public static void main(String[] argv) throws Exception {
    System.exit(run(new Args(argv)));
  }

  public static int run(Args a) throws Exception {
    String url = a.relayUrl();
    int n = a.integer("connections", 10_000);
    long holdS = a.lng("hold", 10);
    long pid = a.lng("pid", -1);
    // heap from Prometheus /metrics: a JVM relay's (Cairn's); not asked of a relay known to be something else
    String metricsUrl = a.str("metrics-url", pid > 0 && !Rss.isJvm(pid) ? null : metricsUrlFor(url));
    Result r = new Result("idle", "java").put("connections", n).put("url", url).put("level", Integer.toString(n))
        .put("relay_is_jvm", Rss.isJvm(pid));

    Mem before = measure(pid, metricsUrl);
    LongAdder closed = new LongAdder();
    Random rnd = new Random(7);
    long t0 = System.nanoTime();
    try (Ws ws = new Ws(url, n)) {
      List<WebSocket> socks;
      try {
        socks = ws.connectAll(n, 200, sock -> {
          Promise<WebSocket> ready = Promise.promise();
          sock.textMessageHandler(f -> {
            String verb = Frames.verb(f);
            if ("EOSE".equals(verb)) ready.tryComplete(sock);
            else if ("CLOSED".equals(verb)) ready.tryFail("subscription refused: " + f);
          });
          sock.closeHandler(v -> {
            closed.increment();
            ready.tryFail("relay closed the connection (" + sock.closeStatusCode() + " " + sock.closeReason() + ")");
          });
          byte[] pk = new byte[32];
          synchronized (rnd) {
            rnd.nextBytes(pk);
          }
          sock.writeTextMessage("[\"REQ\",\"idle\",{\"kinds\":[1],\"authors\":[\"" + dev.cairn.bench.gen.Canon.hex(pk)
              + "\"]}]");
          return ready.future();
        }).toCompletionStage().toCompletableFuture().get(300, TimeUnit.SECONDS);
      } catch (Exception e) {
        r.error("could not open " + n + " subscribed connections: " + IngestLoad.rootMessage(e));
        return r.finish(a);
      }
      double openS = (System.nanoTime() - t0) / 1e9;
      System.out.printf(Locale.ROOT, "idle: %d connections subscribed in %.1f s; holding %d s%n", n, openS, holdS);
      Thread.sleep(TimeUnit.SECONDS.toMillis(holdS));
      Mem after = measure(pid, metricsUrl);
      if (closed.sum() > 0) r.error("the relay closed " + closed.sum() + " idle connections");
      r.put("open_seconds", Result.round(openS)).put("hold_seconds", holdS);
      if (before.rss >= 0 && after.rss >= 0) {
        r.put("rss_before_mb", Result.round(before.rss / 1048576.0)).put("rss_after_mb", Result.round(after.rss / 1048576.0))
            .put("rss_per_conn_kb", Result.round((after.rss - before.rss) / 1024.0 / n));
      }
      if (before.heap >= 0 && after.heap >= 0) {
        r.put("heap_before_mb", Result.round(before.heap / 1048576.0)).put("heap_after_mb", Result.round(after.heap / 1048576.0))
            .put("heap_per_conn_kb", Result.round((after.heap - before.heap) / 1024.0 / n));
      }
      if (after.connections >= 0) r.put("relay_reported_connections", after.connections);
      if (after.subscriptions >= 0) r.put("relay_reported_subscriptions", after.subscriptions);
      System.out.printf(Locale.ROOT, "idle: RSS %s -> %s MB (%s KB/conn), heap %s -> %s MB (%s KB/conn)%n",
          mb(before.rss), mb(after.rss), perConn(before.rss, after.rss, n), mb(before.heap), mb(after.heap),
          perConn(before.heap, after.heap, n));
      for (WebSocket s : socks) s.close();
      Thread.sleep(500);
    }
    return r.finish(a);
  }

  record Mem(long rss, long heap, long connections, long subscriptions) {}

  static Mem measure(long pid, String metricsUrl) throws Exception {
    Rss.gcIfJvm(pid); // a JVM relay: a full GC first, so heap and RSS hold live data, not garbage
    long kb = Rss.kb(pid);
    long rss = kb < 0 ? -1 : kb * 1024;
    long heap = -1;
    long conns = -1;
    long subs = -1;
    if (metricsUrl != null) {
      try {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create(metricsUrl))
            .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() == 200) {
          heap = sum(resp.body(), "jvm_memory_used_bytes", "area=\"heap\"");
          conns = sum(resp.body(), "cairn_connections", null);
          subs = sum(resp.body(), "cairn_subscriptions", null);
        } else {
          System.err.println(metricsUrl + " answered " + resp.statusCode() + ": no heap figure");
        }
      } catch (Exception e) {
        System.err.println("no metrics from " + metricsUrl + ": " + e);
      }
    }
    return new Mem(rss, heap, conns, subs);
  }

  /** Sum of the samples of one Prometheus metric (optionally with a label fragment); -1 when absent. */
  static long sum(String body, String metric, String label) {
    double total = 0;
    boolean found = false;
    for (String line : body.split("\n")) {
      if (line.startsWith("#") || !line.startsWith(metric)) continue;
      String rest = line.substring(metric.length());
      if (!(rest.startsWith("{") || rest.startsWith(" "))) continue;
      if (label != null && !rest.contains(label)) continue;
      String[] parts = line.trim().split("\\s+");
      try {
        total += Double.parseDouble(parts[parts.length - 1]);
        found = true;
      } catch (NumberFormatException ignored) {
        // a timestamped or malformed sample: skip
      }
    }
    return found ? (long) total : -1;
  }

  static String metricsUrlFor(String wsUrl) {
    URI u = URI.create(wsUrl);
    String scheme = "wss".equals(u.getScheme()) ? "https" : "http";
    return scheme + "://" + u.getHost() + (u.getPort() > 0 ? ":" + u.getPort() : "") + "/metrics";
  }

  private static String mb(long b) {
    return b < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", b / 1048576.0);
  }

  private static String perConn(long before, long after, int n) {
    return before < 0 || after < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", (after - before) / 1024.0 / n);
  }
}
