package dev.cairn.bench.load;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * ingest (windowed) and preload: C connections publish pre-signed events with up to W EVENTs in flight
 * per connection, each correlated with its OK by id. Gatling's WebSocket DSL allows one pending check
 * per socket (a window of 1), hence this client; IngestSimulation is the Gatling twin with window 1.
 *
 * <pre>
 * IngestLoad --file events.jsonl [--url ws://127.0.0.1:7777] [--levels 1x50,50x20]
 *            [--connections 1,50,500 --window 32] [--duration 30] [--ok-timeout 30]
 *            [--preload [--max-events N]] [--chunk 50000] [--relay-name NAME] [--result-file f.jsonl]
 *            [--pid PID]
 * </pre>
 *
 * {@code --levels CxW,...}: C connections with W EVENTs in flight each (default 1x50,50x20, the ingest
 * scenario's two shapes); {@code --connections} with one {@code --window} is the older form.
 *
 * The file is cut into --slices equal consecutive slices (default: one per level); level k publishes
 * slice --first-slice + k, for at most --duration seconds (a level that sends its whole slice sooner
 * just ends sooner; rates are over the time actually spent). With
 * --preload the whole file is sent once (in chunks), without a time limit. Exit status 1 when the relay
 * could not be reached, closed a connection, left EVENTs without OK (no OK at all for --ok-timeout
 * seconds), or answered OK false other than "duplicate:". With --pid (the relay's process on this
 * machine) each level also reports the relay's CPU time per accepted event ({@link RelayCpu}).
 */
public final class IngestLoad {
  public static void main(String[] argv) throws Exception {
    System.exit(run(new Args(argv)));
  }

  public static int run(Args a) throws Exception {
    String url = a.relayUrl();
    Path file = Path.of(a.required("file"));
    boolean preload = a.flag("preload");
    int window = a.integer("window", 32);
    double durationS = a.dbl("duration", 30);
    long okTimeoutS = a.lng("ok-timeout", 30);
    String scenario = a.str("scenario", preload ? "preload" : "ingest");
    int status = 0;
    if (preload) {
      int c = Integer.parseInt(a.str("connections", "8").split(",")[0]);
      status = preloadAll(a, url, file, c, window, okTimeoutS, scenario);
    } else {
      List<EventLine> all = EventFile.readAll(file, a.integer("max-events", Integer.MAX_VALUE));
      List<int[]> levels = levels(a, window);
      int slices = a.integer("slices", levels.size());
      int first = a.integer("first-slice", 0);
      if (first + levels.size() > slices) throw new IllegalArgumentException("--first-slice + levels > --slices");
      for (int k = 0; k < levels.size(); k++) {
        int c = levels.get(k)[0];
        int w = levels.get(k)[1];
        Result r = new Result(scenario, "java-windowed");
        r.put("level", c + "x" + w).put("connections", c).put("window", w).put("url", url);
        oneLevel(url, EventFile.slice(all, first + k, slices), c, w, durationS, okTimeoutS, a.lng("pid", -1), r);
        status |= r.finish(a);
        if (r.failed()) break;
      }
    }
    return status;
  }

  /**
   * The levels: {@code --levels 1x50,50x20} (connections x EVENTs in flight per connection), else
   * {@code --connections 1,50,500} each with {@code --window}.
   */
  static List<int[]> levels(Args a, int window) {
    List<int[]> out = new ArrayList<>();
    String spec = a.str("levels", a.str("connections", null) == null ? "1x50,50x20" : null);
    if (spec != null) {
      for (String l : spec.split(",")) {
        String[] cw = l.trim().toLowerCase(Locale.ROOT).split("x");
        if (cw.length != 2) throw new IllegalArgumentException("--levels takes CxW,CxW... (e.g. 1x50,50x20), got " + l);
        out.add(new int[] {Integer.parseInt(cw[0].trim()), Integer.parseInt(cw[1].trim())});
      }
    } else {
      for (String c : a.str("connections", "1").split(",")) out.add(new int[] {Integer.parseInt(c.trim()), window});
    }
    return out;
  }

  /** Runs one connection level on its slice of the file, until the slice is sent or the duration is over. */
  static void oneLevel(String url, List<EventLine> events, int c, int window, double durationS,
      long okTimeoutS, long relayPid, Result r) throws Exception {
    if (events.isEmpty()) {
      r.error("no events for this level: generate a larger file");
      return;
    }
    List<ArrayDeque<EventLine>> queues = EventFile.partition(events, c);
    Publisher.Counters counters = new Publisher.Counters();
    Latencies lat = new Latencies();
    LatencyBySecond bySecond = new LatencyBySecond();
    try (Ws ws = new Ws(url, c)) {
      List<Publisher> pubs = connect(ws, c, window, counters, lat, r);
      if (pubs == null) return;
      for (Publisher p : pubs) {
        p.onOk((id, verdict, nanos) -> bySecond.record(System.currentTimeMillis() - nanos / 1_000_000, nanos));
      }
      long start = System.nanoTime();
      RelayCpu cpu = RelayCpu.start(relayPid);
      long deadline = start + (long) (durationS * 1e9);
      runBatch(pubs, queues, deadline, okTimeoutS, counters, r);
      double elapsed = elapsedSeconds(counters, start);
      report(r, counters, lat, elapsed);
      cpu.report(r, "relay_cpu_us_per_event", counters.accepted.sum(), 1e6);
      System.out.printf(Locale.ROOT, "ingest c=%d window=%d: %d EVENTs, %d accepted, %d duplicate, %.0f events/s OK'd"
          + " (%.0f accepted/s) over %.1f s; EVENT->OK %s%n", c, window, counters.sent.sum(), counters.accepted.sum(),
          counters.duplicate.sum(), counters.okd() / elapsed, counters.accepted.sum() / elapsed, elapsed,
          lat.snapshot().describe());
      String perSecond = bySecond.describe();
      r.put("event_ok_p50_p99_ms_by_second", perSecond);
      System.out.println("EVENT->OK p50/p99 ms by second of the sends: " + perSecond);
      pubs.forEach(Publisher::close);
    }
  }

  static int preloadAll(Args a, String url, Path file, int c, int window, long okTimeoutS, String scenario)
      throws Exception {
    Result r = new Result(scenario, "java-windowed");
    r.put("level", a.str("level", scenario)).put("connections", c).put("window", window).put("url", url)
        .put("file", file.toString());
    Publisher.Counters counters = new Publisher.Counters();
    Latencies lat = new Latencies();
    long start = System.nanoTime();
    try (Ws ws = new Ws(url, c); EventFile f = new EventFile(file)) {
      List<Publisher> pubs = connect(ws, c, window, counters, lat, r);
      if (pubs != null) {
        int chunk = a.integer("chunk", 50_000);
        long left = a.lng("max-events", Long.MAX_VALUE);
        long lastPrint = System.nanoTime();
        List<EventLine> batch;
        while (left > 0 && !(batch = f.next((int) Math.min(chunk, left))).isEmpty()) {
          left -= batch.size();
          runBatch(pubs, EventFile.partition(batch, c), Long.MAX_VALUE, okTimeoutS, counters, r);
          if (r.failed()) break;
          if (System.nanoTime() - lastPrint > TimeUnit.SECONDS.toNanos(10)) {
            lastPrint = System.nanoTime();
            System.out.printf(Locale.ROOT, "preload: %d events OK'd, %.0f/s%n", counters.okd(),
                counters.okd() / ((System.nanoTime() - start) / 1e9));
          }
        }
        pubs.forEach(Publisher::close);
      }
    }
    double elapsed = elapsedSeconds(counters, start);
    report(r, counters, lat, elapsed);
    System.out.printf(Locale.ROOT, "preload: %d events (%d accepted, %d duplicate) in %.1f s, %.0f events/s%n",
        counters.sent.sum(), counters.accepted.sum(), counters.duplicate.sum(), elapsed, counters.okd() / elapsed);
    return r.finish(a);
  }

  static List<Publisher> connect(Ws ws, int c, int window, Publisher.Counters counters, Latencies lat, Result r) {
    try {
      return ws.connectAll(c, 64, sock -> Future.succeededFuture(new Publisher(sock, window, counters, lat)))
          .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      r.error("relay did not accept the WebSocket connections: " + rootMessage(e));
      return null;
    }
  }

  /**
   * Runs queues to completion or deadline, then waits for the last OKs; records missing OKs as errors.
   * The wait ends when every publisher is done, or when no OK at all arrived for {@code stallS} seconds
   * (sending is window-limited, so that is a relay that stopped answering), whatever the batch size.
   */
  static void runBatch(List<Publisher> pubs, List<ArrayDeque<EventLine>> queues, long deadline, long stallS,
      Publisher.Counters counters, Result r) throws Exception {
    List<CompletableFuture<Void>> dones = new ArrayList<>();
    for (int i = 0; i < pubs.size(); i++) {
      Promise<Void> p = Promise.promise();
      pubs.get(i).run(queues.get(i), deadline, p);
      dones.add(p.future().toCompletionStage().toCompletableFuture());
    }
    CompletableFuture<Void> all = CompletableFuture.allOf(dones.toArray(CompletableFuture[]::new));
    long lastAnswers = -1;
    long lastProgress = System.nanoTime();
    while (true) {
      try {
        all.get(1, TimeUnit.SECONDS);
        break;
      } catch (java.util.concurrent.TimeoutException e) {
        long answers = counters.okd() + counters.rejected.sum();
        long now = System.nanoTime();
        if (answers != lastAnswers) {
          lastAnswers = answers;
          lastProgress = now;
        } else if (now - lastProgress > TimeUnit.SECONDS.toNanos(stallS)) {
          break; // no OK for stallS seconds: count what is missing
        }
      }
    }
    long missing = 0;
    for (Publisher p : pubs) {
      CompletableFuture<Integer> m = new CompletableFuture<>();
      p.missing(m::complete);
      missing += m.get(10, TimeUnit.SECONDS);
    }
    check(counters, missing, r);
  }

  static void check(Publisher.Counters c, long missing, Result r) {
    if (missing > 0) r.error(missing + " EVENTs got no OK in time");
    if (c.rejected.sum() > 0) r.error(c.rejected.sum() + " EVENTs got OK false (not duplicate:)");
    if (c.closedEarly.sum() > 0) r.error("the relay closed " + c.closedEarly.sum() + " publishing connections");
    if (c.sent.sum() == 0) r.error("no EVENT was sent");
    if (r.failed() && !c.samples.isEmpty()) r.error("frames/symptoms: " + String.join(" | ", c.samples));
  }

  static double elapsedSeconds(Publisher.Counters c, long start) {
    long first = c.firstSendNanos == 0 ? start : c.firstSendNanos;
    long last = c.lastOkNanos == 0 ? System.nanoTime() : c.lastOkNanos;
    return Math.max(1e-3, (last - first) / 1e9);
  }

  static void report(Result r, Publisher.Counters c, Latencies lat, double elapsed) {
    r.put("events_sent", c.sent.sum()).put("accepted", c.accepted.sum()).put("duplicate", c.duplicate.sum())
        .put("rejected", c.rejected.sum()).put("notices", c.notices.sum()).put("seconds", Result.round(elapsed))
        .put("oks_per_s", Result.round(c.okd() / elapsed)).put("accepted_per_s", Result.round(c.accepted.sum() / elapsed))
        .latency("event_ok", lat.snapshot());
  }

  static String rootMessage(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) t = t.getCause();
    return String.valueOf(t.getMessage() == null ? t : t.getMessage());
  }
}
