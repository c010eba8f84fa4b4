package dev.cairn.bench.gatling;

import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.bodyString;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.ws;

import dev.cairn.bench.load.Frames;
import dev.cairn.bench.load.Latencies;
import dev.cairn.bench.load.Result;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.core.Simulation;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * query: U virtual users each send REQs from the query mix (QueryPlan's file: by author, kind+since,
 * #t tag, ids, limit 100/500) one at a time and await the EOSE of that sub id, then CLOSE it. The check
 * "REQ->EOSE <type>" carries REQ->EOSE latency in Gatling's report; the simulation also records it in
 * microseconds with the number of events per REQ and prints a RESULT line per query type.
 * A CLOSED instead of EOSE, nothing within reqTimeout, or an ids query that does not return
 * every requested (stored) id is a failure.
 *
 * <p>-DRELAY_URL -Dqueries=queries.jsonl -Dusers=10 -Dduration=30 -DreqTimeout=30 [-DresultFile=...]
 */
public class QuerySimulation extends Simulation {
  private record Query(String name, String filterJson, int expect) {}

  private static final class TypeStats {
    final Latencies lat = new Latencies();
    final LongAdder reqs = new LongAdder();
    final LongAdder events = new LongAdder();
    final LongAdder shortIds = new LongAdder();
  }

  private final String url = Bench.relayUrl();
  private final List<Query> queries = load(Path.of(Bench.required("queries")));
  private final AtomicLong next = new AtomicLong();
  private final int users = Bench.integer("users", 10);
  private final double durationS = Bench.dbl("duration", 30);
  private final int reqTimeout = Bench.integer("reqTimeout", 30);
  private final Map<String, TypeStats> stats = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> eventsPerSub = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
  private volatile long deadline;
  private volatile long startNanos;

  private static List<Query> load(Path file) {
    try {
      List<Query> out = new ArrayList<>();
      for (String line : Files.readAllLines(file)) {
        if (line.isBlank()) continue;
        JsonObject q = new JsonObject(line);
        out.add(new Query(q.getString("name"), q.getJsonObject("filter").encode(), q.getInteger("expect", -1)));
      }
      if (out.isEmpty()) throw new IllegalArgumentException("no queries in " + file);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Session pick(Session session) {
    if (System.nanoTime() >= deadline) return session.remove("req");
    long n = next.getAndIncrement();
    Query q = queries.get((int) (n % queries.size()));
    String sub = "q" + n;
    eventsPerSub.put(sub, new AtomicInteger());
    String req = "[\"REQ\",\"" + sub + "\"," + q.filterJson() + "]";
    return session.set("req", req).set("sub", sub).set("qname", q.name()).set("expect", q.expect())
        .set("close", new JsonArray().add("CLOSE").add(sub).encode());
  }

  /** Matching: counts this sub's EVENT frames, and matches its EOSE or CLOSED (a NOTICE is noted, not matched). */
  private boolean terminalForSub(String frame, Session session) {
    Frames.Head h = Frames.head(frame);
    if (h == null) return false;
    String sub = session.getString("sub");
    if ("EVENT".equals(h.verb()) && sub.equals(h.second())) {
      AtomicInteger c = eventsPerSub.get(sub);
      if (c != null) c.incrementAndGet();
      return false;
    }
    if ("NOTICE".equals(h.verb()) && problems.size() < 10) problems.add("(not fatal) " + Frames.abbreviate(frame));
    return ("EOSE".equals(h.verb()) || "CLOSED".equals(h.verb())) && sub.equals(h.second());
  }

  private String verdict(String frame, Session session) {
    long now = System.nanoTime();
    String sub = session.getString("sub");
    AtomicInteger count = eventsPerSub.remove(sub);
    if (!"EOSE".equals(Frames.verb(frame))) {
      if (problems.size() < 10) problems.add(Frames.abbreviate(frame));
      return Frames.abbreviate(frame);
    }
    TypeStats s = stats.computeIfAbsent(session.getString("qname"), k -> new TypeStats());
    s.lat.recordNanos(now - session.getLong("t0"));
    s.reqs.increment();
    int n = count == null ? 0 : count.get();
    s.events.add(n);
    int expect = session.getInt("expect");
    if (expect >= 0 && n < expect) {
      s.shortIds.increment();
      String problem = sub + " asked for " + expect + " stored ids, got " + n;
      if (problems.size() < 10) problems.add(problem);
      return problem;
    }
    return "EOSE";
  }

  {
    ScenarioBuilder scn = scenario("query")
        .exec(session -> {
          synchronized (this) {
            if (deadline == 0) {
              startNanos = System.nanoTime();
              deadline = startNanos + (long) (durationS * 1e9);
            }
          }
          return session;
        })
        .exec(ws("connect").connect(url))
        .exec(this::pick)
        .asLongAs(session -> session.contains("req")).on(
            exec(session -> session.set("t0", System.nanoTime()))
            .exec(ws("REQ #{qname}").sendText(session -> session.getString("req"))
                .await(reqTimeout).on(
                    ws.checkTextMessage("REQ->EOSE #{qname}")
                        .matching(bodyString().transformWithSession(this::terminalForSub).is(true))
                        .check(bodyString().transformWithSession(this::verdict).is("EOSE"))))
            .exec(ws("CLOSE").sendText(session -> session.getString("close")))
            .exec(this::pick))
        .exec(ws("close").close());
    setUp(scn.injectOpen(atOnceUsers(users)))
        .protocols(http.wsMaxReconnects(0))
        .assertions(
            global().failedRequests().count().is(0L),
            global().successfulRequests().count().gt(0L));
  }

  @Override
  public void after() {
    double elapsed = Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
    long total = 0;
    for (Map.Entry<String, TypeStats> e : new TreeMap<>(stats).entrySet()) {
      TypeStats s = e.getValue();
      total += s.reqs.sum();
      Latencies.Snapshot snap = s.lat.snapshot();
      Result r = new Result("query", "gatling").put("type", e.getKey()).put("users", users).put("url", url)
          .put("reqs", s.reqs.sum()).put("events_per_req", Result.round((double) s.events.sum() / s.reqs.sum()))
          .latency("req_eose", snap);
      if (s.shortIds.sum() > 0) r.error(s.shortIds.sum() + " ids queries did not return every stored id");
      System.out.printf(Locale.ROOT, "query %-22s %6d REQs, %6.1f events/REQ, REQ->EOSE %s%n", e.getKey(),
          s.reqs.sum(), (double) s.events.sum() / s.reqs.sum(), snap.describe());
      r.finish(Bench.resultArgs());
    }
    Result all = new Result("query", "gatling").put("type", "all").put("users", users).put("url", url)
        .put("reqs", total).put("seconds", Result.round(elapsed)).put("reqs_per_s", Result.round(total / elapsed));
    if (total == 0) all.error("no REQ got its EOSE");
    if (!problems.isEmpty()) {
      all.put("notes", String.join(" | ", problems));
      if (problems.stream().anyMatch(p -> !p.startsWith("(not fatal)"))) all.error("frames/symptoms: " + String.join(" | ", problems));
    }
    System.out.printf(Locale.ROOT, "query: %d REQs in %.1f s, %.0f REQ/s with %d users%n", total, elapsed,
        total / elapsed, users);
    all.finish(Bench.resultArgs());
  }
}
