package dev.cairn.bench.gatling;

import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.bodyString;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.ws;

import dev.cairn.bench.load.EventLine;
import dev.cairn.bench.load.Frames;
import dev.cairn.bench.load.Result;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.core.Simulation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * ingest, Gatling twin of IngestLoad with a window of 1: C virtual users (one WebSocket each) publish
 * pre-signed events from the generated file; each EVENT awaits its own OK (matched by event id). The
 * check "EVENT->OK c=C" carries the EVENT->OK latency in Gatling's report; the simulation also records
 * it in microseconds and prints a RESULT line per level (accepted events/s, p50/p99). The connection
 * levels run one after the other (andThen); level k publishes slice firstSlice + k of the file cut into
 * `slices` equal slices (default one per level), for at most `duration` seconds.
 *
 * <p>-DRELAY_URL (or env) -Dfile=events.jsonl -Dconnections=1,50,500 -Dduration=30 -DokTimeout=30
 * [-Dslices=N -DfirstSlice=K] [-DresultFile=results.jsonl]
 *
 * <p>Fails (Gatling exits 2) when any request is KO: a refused connection, an OK that did not come
 * within okTimeout, OK false other than "duplicate:".
 */
public class IngestSimulation extends Simulation {
  private final String url = Bench.relayUrl();
  private final List<Integer> levels = parseLevels();
  private final EventQueues events = new EventQueues(Path.of(Bench.required("file")), levels,
      Bench.integer("slices", levels.size()), Bench.integer("firstSlice", 0));
  private final double durationS = Bench.dbl("duration", 30);
  private final int okTimeout = Bench.integer("okTimeout", 30);

  private static List<Integer> parseLevels() {
    List<Integer> out = new ArrayList<>();
    for (String s : Bench.str("connections", "1,50,500").split(",")) out.add(Integer.parseInt(s.trim()));
    return out;
  }

  private ScenarioBuilder level(int c) {
    return scenario("ingest c=" + c)
        .exec(session -> session.set("c", c).set("slot", events.level(c, durationS).claimSlot()))
        .exec(ws("connect c=" + c).connect(url))
        .exec(this::nextEvent)
        .asLongAs(session -> session.contains("evId")).on(
            exec(session -> session.set("t0", System.nanoTime()))
            .exec(ws("EVENT c=" + c).sendText(session -> session.getString("frame"))
                .await(okTimeout).on(
                    ws.checkTextMessage("EVENT->OK c=" + c)
                        .matching(bodyString().transformWithSession(IngestSimulation::isOkForEvent).is(true))
                        .check(bodyString().transformWithSession(this::verdict).is("ok"))))
            .exec(this::nextEvent))
        .exec(ws("close c=" + c).close());
  }

  private Session nextEvent(Session session) {
    EventLine e = events.level(session.getInt("c"), durationS).next(session.getInt("slot"));
    if (e == null) return session.remove("evId").remove("frame");
    return session.set("evId", e.id()).set("frame", e.frame());
  }

  private static boolean isOkForEvent(String frame, Session session) {
    Frames.Head h = Frames.head(frame);
    return h != null && "OK".equals(h.verb()) && session.getString("evId").equals(h.second());
  }

  private String verdict(String frame, Session session) {
    long now = System.nanoTime();
    EventQueues.Level level = events.level(session.getInt("c"), durationS);
    level.lat.recordNanos(now - session.getLong("t0"));
    level.lastOkNanos = now;
    Frames.Ok ok = Frames.ok(frame);
    if (ok != null) {
      switch (ok.verdict()) {
        case ACCEPTED -> level.accepted.increment();
        case DUPLICATE -> level.duplicate.increment();
        case REJECTED -> level.rejected.increment();
      }
    }
    return Frames.okVerdictText(frame);
  }

  {
    PopulationBuilder chain = null;
    for (int i = levels.size() - 1; i >= 0; i--) {
      PopulationBuilder p = level(levels.get(i)).injectOpen(atOnceUsers(levels.get(i)));
      chain = chain == null ? p : p.andThen(chain);
    }
    setUp(chain)
        .protocols(http.wsMaxReconnects(0))
        .assertions(
            global().failedRequests().count().is(0L),
            global().successfulRequests().count().gt(0L));
  }

  @Override
  public void after() {
    for (int c : levels) {
      EventQueues.Level level = events.existingLevel(c);
      Result r = new Result("ingest", "gatling").put("connections", c).put("window", 1).put("url", url);
      if (level == null) {
        r.error("level c=" + c + " never started");
      } else {
        double elapsed = Math.max(1e-3, ((level.lastOkNanos == 0 ? System.nanoTime() : level.lastOkNanos)
            - level.startNanos) / 1e9);
        long okd = level.accepted.sum() + level.duplicate.sum();
        r.put("accepted", level.accepted.sum()).put("duplicate", level.duplicate.sum())
            .put("rejected", level.rejected.sum()).put("seconds", Result.round(elapsed))
            .put("oks_per_s", Result.round(okd / elapsed))
            .put("accepted_per_s", Result.round(level.accepted.sum() / elapsed))
            .latency("event_ok", level.lat.snapshot());
        if (level.rejected.sum() > 0) r.error(level.rejected.sum() + " EVENTs got OK false (not duplicate:)");
        if (okd == 0) r.error("no EVENT got an OK");
        System.out.printf(Locale.ROOT, "ingest (gatling) c=%d window=1: %d accepted, %d duplicate, %.0f events/s OK'd"
            + " over %.1f s; EVENT->OK %s%n", c, level.accepted.sum(), level.duplicate.sum(), okd / elapsed, elapsed,
            level.lat.snapshot().describe());
      }
      r.finish(Bench.resultArgs());
    }
  }
}
