package dev.cairn.bench.load;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * query: C connections (default 10), closed loop: each sends a REQ from the plan (QueryPlan: author,
 * kinds+since, tag, ids), reads its EVENTs until the sub's EOSE, sends CLOSE, then the next REQ, for
 * --duration seconds. Reports queries/s and REQ->EOSE latency overall and per shape, and events per REQ.
 *
 * <pre>QueryLoad --queries queries.jsonl [--url ws://...] [--connections 10] [--duration 30] [--req-timeout 30]
 *           [--relay-name NAME] [--result-file f.jsonl] [--pid PID] [--scenario query] [--client-warmup 2]</pre>
 *
 * Before it measures, the tool runs the same closed loop for {@code --client-warmup} seconds (0: off) against
 * a {@link LoopbackRelay} in its own process that answers every REQ with canned events: a fresh JVM's
 * first seconds of frame reading run interpreted, and the first run's p99 measured the tool (its first
 * two seconds: p99 324 and 146 ms against a warm relay whose later seconds were at 24-75 ms).
 *
 * {@code --scenario} names the results ({@code query-clients} for {@code QueryPlan --mix clients}).
 *
 * With --pid (the relay's process on this machine) the mix also reports the relay's CPU time per query
 * ({@link RelayCpu}).
 *
 * Fails when a REQ gets CLOSED or no EOSE within --req-timeout seconds, an ids query does not return every
 * requested (stored) id, the relay closes a connection, or no REQ completed.
 */
public final class QueryLoad {
  public static void main(String[] argv) throws Exception {
    System.exit(run(new Args(argv)));
  }

  record Query(String type, String filterJson, List<String> ids) {}

  static final class Stats {
    final Latencies lat = new Latencies();
    final LongAdder reqs = new LongAdder();
    final LongAdder events = new LongAdder();
    final LongAdder shortIds = new LongAdder();
  }

  static List<Query> load(Path file) throws IOException {
    List<Query> out = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (line.isBlank()) continue;
      JsonObject q = new JsonObject(line);
      JsonArray ids = q.getJsonArray("expect_ids");
      List<String> idList = null;
      if (ids != null) {
        idList = new ArrayList<>();
        for (Object o : ids) idList.add((String) o);
      }
      out.add(new Query(q.getString("type", q.getString("name")), q.getJsonObject("filter").encode(), idList));
    }
    if (out.isEmpty()) throw new IllegalArgumentException("no queries in " + file);
    return out;
  }

  public static int run(Args a) throws Exception {
    List<Query> queries = load(Path.of(a.required("queries")));
    warmUpClient(a, queries);
    return closedLoop(a, a.relayUrl(), queries, true);
  }

  /**
   * The closed loop against an in-process relay for {@code --client-warmup} seconds; nothing of it is
   * reported (see the class comment).
   */
  static void warmUpClient(Args a, List<Query> queries) throws Exception {
    double seconds = a.dbl("client-warmup", 2);
    if (seconds <= 0) {
      return;
    }
    long t0 = System.nanoTime();
    try (LoopbackRelay loop = new LoopbackRelay(LoopbackRelay.cannedEvents(100))) {
      closedLoop(a.with("pid", null).with("result-file", null).with("duration", String.valueOf(seconds)),
          loop.url(), queries, false);
    }
    Thread.sleep(1000); // the compiler queue
    System.out.printf(Locale.ROOT, "client warm-up: %.1f s against an in-process relay (not measured)%n",
        (System.nanoTime() - t0) / 1e9);
  }

  /** Runs the closed loop for {@code --duration} seconds; with {@code report}, reports and checks what it measured. */
  static int closedLoop(Args a, String url, List<Query> queries, boolean report) throws Exception {
    int c = a.integer("connections", 10);
    double durationS = a.dbl("duration", 30);
    long reqTimeoutMs = a.lng("req-timeout", 30) * 1000;
    Map<String, Stats> stats = new ConcurrentHashMap<>();
    Stats all = new Stats();
    AtomicLong next = new AtomicLong();
    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    LongAdder closedByRelay = new LongAdder();
    LongAdder timeouts = new LongAdder();
    LongAdder closedReqs = new LongAdder();
    AtomicLong lastEose = new AtomicLong();
    String scenario = a.str("scenario", "query");
    Result allResult = new Result(scenario, "java").put("level", "all").put("type", "all").put("connections", c)
        .put("url", url);

    long start;
    double relayCpuS;
    try (Ws ws = new Ws(url, c)) {
      long[] deadline = {Long.MAX_VALUE};
      List<Conn> conns;
      try {
        conns = ws.connectAll(c, 64, sock -> Future.succeededFuture(new Conn(sock)))
            .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        allResult.error("relay did not accept the WebSocket connections: " + IngestLoad.rootMessage(e));
        return allResult.finish(a);
      }
      start = System.nanoTime();
      RelayCpu cpu = RelayCpu.start(a.lng("pid", -1));
      deadline[0] = start + (long) (durationS * 1e9);
      List<CompletableFuture<Void>> dones = new ArrayList<>();
      for (Conn conn : conns) {
        dones.add(conn.start(() -> {
          if (System.nanoTime() >= deadline[0]) return null;
          long n = next.getAndIncrement();
          return queries.get((int) (n % queries.size()));
        }, reqTimeoutMs, stats, all, problems, closedByRelay, timeouts, closedReqs, lastEose));
      }
      try {
        CompletableFuture.allOf(dones.toArray(CompletableFuture[]::new))
            .get((long) (durationS * 1000) + reqTimeoutMs + 10_000, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        allResult.error("the connections did not finish in time");
      }
      relayCpuS = cpu.seconds();
      conns.forEach(Conn::close);
      Thread.sleep(100);
    }
    if (!report) {
      return 0;
    }
    double elapsed = Math.max(1e-3, ((lastEose.get() == 0 ? System.nanoTime() : lastEose.get()) - start) / 1e9);
    int status = 0;
    for (Map.Entry<String, Stats> e : new TreeMap<>(stats).entrySet()) {
      Stats s = e.getValue();
      Latencies.Snapshot snap = s.lat.snapshot();
      Result r = new Result(scenario, "java").put("level", e.getKey()).put("type", e.getKey()).put("connections", c)
          .put("url", url).put("reqs", s.reqs.sum()).put("reqs_per_s", Result.round(s.reqs.sum() / elapsed))
          .put("events_per_req", Result.round((double) s.events.sum() / Math.max(1, s.reqs.sum())))
          .latency("req_eose", snap);
      if (s.shortIds.sum() > 0) r.error(s.shortIds.sum() + " ids queries did not return every stored id");
      System.out.printf(Locale.ROOT, "query %-12s %6d REQs, %7.1f REQ/s, %6.1f events/REQ, REQ->EOSE %s%n", e.getKey(),
          s.reqs.sum(), s.reqs.sum() / elapsed, (double) s.events.sum() / Math.max(1, s.reqs.sum()), snap.describe());
      status |= r.finish(a);
    }
    long total = all.reqs.sum();
    Latencies.Snapshot snap = all.lat.snapshot();
    allResult.put("reqs", total).put("seconds", Result.round(elapsed)).put("reqs_per_s", Result.round(total / elapsed))
        .put("events_per_req", Result.round((double) all.events.sum() / Math.max(1, total))).latency("req_eose", snap);
    RelayCpu.put(allResult, "relay_cpu_ms_per_query", relayCpuS, total, 1e3);
    if (total == 0) allResult.error("no REQ got its EOSE");
    if (timeouts.sum() > 0) allResult.error(timeouts.sum() + " REQs got no EOSE within " + reqTimeoutMs / 1000 + " s");
    if (closedReqs.sum() > 0) allResult.error(closedReqs.sum() + " REQs got CLOSED instead of EOSE");
    if (closedByRelay.sum() > 0) allResult.error("the relay closed " + closedByRelay.sum() + " connections");
    if (all.shortIds.sum() > 0) allResult.error(all.shortIds.sum() + " ids queries did not return every stored id");
    if (!problems.isEmpty()) {
      allResult.put("notes", String.join(" | ", problems));
      if (allResult.failed()) allResult.error("frames/symptoms: " + String.join(" | ", problems));
    }
    System.out.printf(Locale.ROOT, "query: %d REQs in %.1f s, %.0f REQ/s with %d connections, REQ->EOSE %s%n", total,
        elapsed, total / elapsed, c, snap.describe());
    status |= allResult.finish(a);
    return status;
  }

  /** One closed-loop connection; all its state lives on the socket's context. */
  static final class Conn {
    private final WebSocket ws;
    private final Context ctx;
    private java.util.function.Supplier<Query> source;
    private long reqTimeoutMs;
    private Map<String, Stats> stats;
    private Stats all;
    private ConcurrentLinkedQueue<String> problems;
    private LongAdder timeouts;
    private LongAdder closedReqs;
    private AtomicLong lastEose;
    private final Promise<Void> done = Promise.promise();
    private long seq;
    private String sub;
    private Query q;
    private long t0;
    private int count;
    private Set<String> seenIds;
    private long timer = -1;
    private boolean ending;

    Conn(WebSocket ws) {
      this.ws = ws;
      this.ctx = Vertx.currentContext();
      FrameBytes.textMessages(ws, this::onText);
    }

    CompletableFuture<Void> start(java.util.function.Supplier<Query> source, long reqTimeoutMs,
        Map<String, Stats> stats, Stats all, ConcurrentLinkedQueue<String> problems, LongAdder closedByRelay,
        LongAdder timeouts, LongAdder closedReqs, AtomicLong lastEose) {
      this.source = source;
      this.reqTimeoutMs = reqTimeoutMs;
      this.stats = stats;
      this.all = all;
      this.problems = problems;
      this.timeouts = timeouts;
      this.closedReqs = closedReqs;
      this.lastEose = lastEose;
      ws.closeHandler(v -> {
        if (ending) return;
        closedByRelay.increment();
        note("relay closed a query connection (" + ws.closeStatusCode() + " " + ws.closeReason() + ")");
        done.tryComplete();
      });
      ctx.runOnContext(v -> next());
      return done.future().toCompletionStage().toCompletableFuture();
    }

    private void note(String p) {
      if (problems.size() < 10) problems.add(Frames.abbreviate(p));
    }

    private void next() {
      q = source.get();
      if (q == null) {
        done.tryComplete();
        return;
      }
      sub = "q" + Long.toHexString(System.identityHashCode(this)) + "-" + seq++;
      count = 0;
      seenIds = q.ids() == null ? null : new HashSet<>();
      String subNow = sub;
      timer = ctx.owner().setTimer(reqTimeoutMs, id -> {
        if (!subNow.equals(sub)) return;
        timeouts.increment();
        note("no EOSE for " + q.type() + " " + q.filterJson());
        done.tryComplete();
      });
      t0 = System.nanoTime();
      ws.writeTextMessage("[\"REQ\",\"" + sub + "\"," + q.filterJson() + "]");
    }

    private void onText(byte[] f) {
      Frames.Head h = FrameBytes.head(f);
      if (h == null) return;
      if (sub == null || !sub.equals(h.second())) {
        if ("NOTICE".equals(h.verb())) note("(not fatal) " + FrameBytes.text(f));
        return;
      }
      switch (h.verb()) {
        case "EVENT" -> {
          count++;
          if (seenIds != null) seenIds.add(FrameBytes.eventId(f));
        }
        case "EOSE" -> {
          long now = System.nanoTime();
          ctx.owner().cancelTimer(timer);
          Stats s = stats.computeIfAbsent(q.type(), k -> new Stats());
          for (Stats t : new Stats[] {s, all}) {
            t.lat.recordNanos(now - t0);
            t.reqs.increment();
            t.events.add(count);
          }
          lastEose.accumulateAndGet(now, Math::max);
          if (q.ids() != null && !seenIds.containsAll(q.ids())) {
            long missing = q.ids().stream().filter(id -> !seenIds.contains(id)).count();
            s.shortIds.increment();
            all.shortIds.increment();
            note("ids query got " + (q.ids().size() - missing) + " of " + q.ids().size() + " stored ids");
          }
          ws.writeTextMessage("[\"CLOSE\",\"" + sub + "\"]");
          sub = null;
          next();
        }
        case "CLOSED" -> {
          ctx.owner().cancelTimer(timer);
          closedReqs.increment();
          note(q.type() + " " + q.filterJson() + " -> " + FrameBytes.text(f));
          sub = null;
          next();
        }
        default -> { }
      }
    }

    void close() {
      ctx.runOnContext(v -> {
        ending = true;
        ws.close();
      });
    }
  }
}
