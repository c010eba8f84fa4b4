package dev.cairn.bench.load;

import io.vertx.core.Promise;
import io.vertx.core.http.WebSocket;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * fanout: S subscribers (default 200) hold a broad filter ({@code {"kinds":[1,7],"since":<first event's
 * created_at>}}) while P publishers write pre-signed events at a fixed total offered rate, open loop
 * (every EVENT is sent at its time whatever the OKs do). Levels (default {@code overload:2000,latency:50}):
 * "overload" offers more than a relay can deliver on this machine, "latency" a rate every relay keeps up
 * with. Measures deliveries/s, publish->delivery latency (the EVENT's send time at the publisher to its
 * arrival at each subscriber, one process, one clock), the publishers' EVENT->OK latency, and the relay's
 * RSS (VmRSS of --pid every 200 ms: start and max) and CPU time per delivery ({@link RelayCpu}, from the
 * first offer to the end of the drain). Gatling cannot correlate one virtual user's send with
 * another's receive, hence this Java client.
 *
 * <pre>
 * FanoutLoad --file fanout.jsonl [--url ws://...] [--subscribers 200] [--publishers 4]
 *            [--levels overload:2000,latency:50 | --rate 200] [--duration 10] [--ok-timeout 60]
 *            [--drain-max 120] [--quiet 5] [--overload-levels overload] [--pid PID]
 *            [--relay-name NAME] [--result-file f.jsonl] [--trace PREFIX] [--client-warmup 2]
 * </pre>
 *
 * Before the first level the tool warms its own JIT against a relay in its own process
 * ({@link #warmUpClient}, {@code --client-warmup} seconds, 0: off): otherwise its first ~100 ms of
 * deliveries run interpreted and the latency level measures the tool.
 *
 * {@code --trace PREFIX} writes {@code PREFIX-<level>.tsv}: one line per offered event with its send time
 * (ms since the level began), its EVENT->OK latency and its slowest delivery (ms; -1 when none), to see
 * where in a level the slow events fall (a fresh JVM's first seconds, a checkpoint, a collection).
 *
 * Counting rules. A subscriber the relay closes (connection closed, or CLOSED for its subscription after
 * EOSE) is reported apart, with the close code and reason or the CLOSED message; that is allowed on the
 * overload levels (--overload-levels, default: overload) and fails any other level. For every subscriber
 * still connected at the end, every event that got OK true must have arrived exactly once: a missing
 * or a duplicate delivery fails the level, whatever the level. EVENTs whose OK came later than
 * --ok-timeout (60 s) after their send are counted; that fails all but the overload levels. The drain
 * after publishing waits until every OK and every expected delivery arrived, or nothing (no OK, no
 * delivery) arrived for --quiet seconds once the OKs are in or their timeout passed, at most --drain-max
 * seconds. Also failures everywhere: an EVENT with no OK at all by the end of the drain, OK false (not
 * duplicate:), a subscription refused or without EOSE, a publishing connection closed by the relay.
 */
public final class FanoutLoad {
  public static void main(String[] argv) throws Exception {
    System.exit(run(new Args(argv)));
  }

  /**
   * One level: a name, a total offered rate (events/s), and whether it is an overload level, where the
   * relay may shed load: close subscribers, or answer OK later than --ok-timeout.
   */
  public record Level(String name, double rate, boolean overload) {}

  static List<Level> levels(Args a) {
    String spec = a.str("levels", null);
    if (spec == null && a.str("rate", null) != null) spec = "rate" + a.str("rate", null) + ":" + a.str("rate", null);
    if (spec == null) spec = "overload:2000,latency:50";
    List<String> allowed = List.of(a.str("overload-levels", "overload").split(","));
    List<Level> out = new ArrayList<>();
    for (String l : spec.split(",")) {
      String[] nr = l.trim().split(":");
      if (nr.length != 2) throw new IllegalArgumentException("--levels takes name:rate,... (e.g. overload:2000,latency:50)");
      out.add(new Level(nr[0].trim(), Double.parseDouble(nr[1].trim()), allowed.contains(nr[0].trim())));
    }
    return out;
  }

  public static int run(Args a) throws Exception {
    String url = a.relayUrl();
    List<EventLine> remaining = EventFile.readAll(Path.of(a.required("file")), Integer.MAX_VALUE);
    int s = a.integer("subscribers", 200);
    warmUpClient(a, remaining, s);
    int status = 0;
    for (Level lv : levels(a)) {
      Result r = new Result("fanout", "java");
      r.put("level", lv.name()).put("subscribers", s).put("publishers", a.integer("publishers", 4))
          .put("target_rate", lv.rate()).put("overload", lv.overload()).put("url", url);
      remaining = level(a, url, remaining, s, lv, r);
      status |= r.finish(a); // a failed level does not stop the next one: each is measured on its own
    }
    return status;
  }

  /**
   * Runs this tool's own code hot before it measures anything: a level against a {@link LoopbackRelay} in
   * this process ({@code --client-warmup} seconds at 1,000 events/s to as many subscribers, the level's
   * first events; default 2, 0: none), then a second for the compiler queue. Nothing of it is reported and
   * the relay under test sees none of it.
   */
  static void warmUpClient(Args a, List<EventLine> events, int subscribers) throws Exception {
    double seconds = a.dbl("client-warmup", 2);
    if (seconds <= 0 || events.isEmpty()) {
      return;
    }
    double rate = 1000;
    List<EventLine> sample = List.copyOf(events.subList(0, (int) Math.min(events.size(), rate * seconds)));
    long t0 = System.nanoTime();
    try (LoopbackRelay loop = new LoopbackRelay()) {
      Args warm = a.with("pid", null).with("trace", null).with("duration", String.valueOf(seconds))
          .with("drain-max", "20").with("quiet", "1");
      Result r = new Result("fanout", "java");
      level(warm, loop.url(), sample, subscribers, new Level("client-warmup", rate, true), r);
    }
    Thread.sleep(1000);
    System.out.printf(Locale.ROOT, "client warm-up: %d events to %d subscribers of an in-process relay in %.1f s (not measured)%n",
        sample.size(), subscribers, (System.nanoTime() - t0) / 1e9);
  }

  static final class Subscriber {
    final int index;
    final BitSet got;
    WebSocket ws;
    volatile boolean eose;
    /** Closed by the relay (connection or CLOSED after EOSE); its deliveries are not checked. */
    volatile boolean closed;
    volatile String closeInfo;
    int unique; // guarded by this
    int dups; // guarded by this

    Subscriber(int index, int events) {
      this.index = index;
      this.got = new BitSet(events);
    }

    synchronized int unique() {
      return unique;
    }
  }

  static void writeTrace(Path file, long start, AtomicLongArray sendNanos, AtomicLongArray okNanos,
      AtomicIntegerArray okState, AtomicLongArray slowestDelivery) throws java.io.IOException {
    StringBuilder sb = new StringBuilder("event\tsent_ms\tok_ms\tslowest_delivery_ms\n");
    for (int i = 0; i < sendNanos.length(); i++) {
      long slowest = slowestDelivery.get(i);
      sb.append(i).append('\t').append(Result.round((sendNanos.get(i) - start) / 1e6)).append('\t')
          .append(okState.get(i) == 0 ? -1 : Result.round(okNanos.get(i) / 1e6)).append('\t')
          .append(slowest == 0 ? -1 : Result.round(slowest / 1e6)).append('\n');
    }
    java.nio.file.Files.writeString(file, sb);
  }

  static List<EventLine> level(Args a, String url, List<EventLine> events, int s, Level lv, Result r)
      throws Exception {
    int p = a.integer("publishers", 4);
    double durationS = a.dbl("duration", 10);
    long okTimeoutNanos = TimeUnit.SECONDS.toNanos(a.lng("ok-timeout", 60));
    long drainMaxNanos = TimeUnit.SECONDS.toNanos(a.lng("drain-max", 120));
    long quietNanos = (long) (a.dbl("quiet", 5) * 1e9);
    double rate = lv.rate();
    int toSend = (int) Math.min(events.size(), Math.ceil(rate * durationS));
    if (toSend == 0) {
      r.error("the event file is exhausted: generate more fan-out events");
      return events;
    }
    List<EventLine> batch = events.subList(0, toSend);
    List<EventLine> rest = events.subList(toSend, events.size());
    long since = batch.stream().mapToLong(EventLine::createdAt).min().orElse(0);
    Map<String, Integer> index = new HashMap<>(toSend * 2);
    for (int i = 0; i < toSend; i++) {
      EventLine e = batch.get(i);
      if (e.kind() != 1 && e.kind() != 7) throw new IllegalArgumentException("fan-out events must be kinds 1 and 7");
      index.put(e.id(), i);
    }

    AtomicLongArray sendNanos = new AtomicLongArray(toSend);
    AtomicLongArray slowestDelivery = new AtomicLongArray(toSend);
    AtomicIntegerArray okState = new AtomicIntegerArray(toSend); // 0 none, 1 accepted, 2 duplicate, 3 rejected
    AtomicLongArray okNanos = new AtomicLongArray(toSend);
    LongAdder answered = new LongAdder();
    LongAdder acceptedCount = new LongAdder();
    Latencies delivery = new Latencies();
    LongAdder deliveries = new LongAdder();
    LongAdder history = new LongAdder();
    LongAdder unknown = new LongAdder();
    AtomicLong lastDelivery = new AtomicLong();
    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    String filter = "{\"kinds\":[1,7],\"since\":" + since + "}";
    java.util.concurrent.atomic.AtomicBoolean ending = new java.util.concurrent.atomic.AtomicBoolean();

    Rss rss = Rss.sample(a.lng("pid", -1), 200);
    try (Ws ws = new Ws(url, s + p)) {
      // subscribers: REQ, then EOSE within 120 s
      List<Subscriber> subs;
      long t0 = System.nanoTime();
      int[] nextIndex = {0};
      try {
        subs = ws.connectAll(s, 128, sock -> {
          Subscriber sub;
          synchronized (nextIndex) {
            sub = new Subscriber(nextIndex[0]++, toSend);
          }
          sub.ws = sock;
          Promise<Subscriber> ready = Promise.promise();
          FrameBytes.textMessages(sock, f -> {
            Frames.Head h = FrameBytes.head(f);
            if (h == null) return;
            switch (h.verb()) {
              case "EVENT" -> {
                if (!sub.eose) {
                  history.increment();
                  return;
                }
                String id = FrameBytes.eventId(f);
                Integer i = id == null ? null : index.get(id);
                if (i == null) {
                  unknown.increment();
                  return;
                }
                long now = System.nanoTime();
                boolean first;
                synchronized (sub) {
                  first = !sub.got.get(i);
                  if (first) {
                    sub.got.set(i);
                    sub.unique++;
                  } else {
                    sub.dups++;
                  }
                }
                if (first) {
                  slowestDelivery.accumulateAndGet(i, now - sendNanos.get(i), Math::max);
                  delivery.recordNanos(now - sendNanos.get(i));
                  deliveries.increment();
                  lastDelivery.accumulateAndGet(now, Math::max);
                }
              }
              case "EOSE" -> {
                sub.eose = true;
                ready.tryComplete(sub);
              }
              case "CLOSED" -> {
                if (!sub.eose) {
                  ready.tryFail("subscription refused: " + Frames.abbreviate(FrameBytes.text(f)));
                } else if (!sub.closed) {
                  sub.closeInfo = "CLOSED " + Frames.abbreviate(FrameBytes.text(f));
                  sub.closed = true;
                }
              }
              case "NOTICE" -> {
                if (problems.size() < 10) problems.add(Frames.abbreviate(FrameBytes.text(f)));
              }
              default -> { }
            }
          });
          sock.closeHandler(v -> {
            if (ending.get()) return;
            if (!sub.closed) {
              sub.closeInfo = "connection closed, code " + sock.closeStatusCode() + " "
                  + (sock.closeReason() == null ? "" : sock.closeReason());
              sub.closed = true;
            }
            ready.tryFail("relay closed the subscriber connection before EOSE (" + sock.closeStatusCode() + " "
                + sock.closeReason() + ")");
          });
          sock.writeTextMessage("[\"REQ\",\"fan\"," + filter + "]");
          return ready.future();
        }).toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
      } catch (Exception e) {
        r.error("subscribers could not all subscribe: " + IngestLoad.rootMessage(e));
        rss.close();
        rss.report(r);
        return rest;
      }
      double subscribeS = (System.nanoTime() - t0) / 1e9;

      // publishers: open loop (no window), each EVENT's OK recorded by index
      Publisher.Counters pc = new Publisher.Counters();
      Latencies okLat = new Latencies();
      List<Publisher> pubs = IngestLoad.connect(ws, p, Integer.MAX_VALUE, pc, okLat, r);
      if (pubs == null) {
        rss.close();
        rss.report(r);
        return rest;
      }
      for (Publisher pub : pubs) {
        pub.onSend(id -> sendNanos.set(index.get(id), System.nanoTime()));
        pub.onOk((id, verdict, nanos) -> {
          Integer i = index.get(id);
          if (i == null) return;
          if (okState.compareAndSet(i, 0, switch (verdict) {
            case ACCEPTED -> 1;
            case DUPLICATE -> 2;
            case REJECTED -> 3;
          })) {
            okNanos.set(i, nanos);
            answered.increment();
            if (verdict == Frames.Verdict.ACCEPTED) acceptedCount.increment();
          }
        });
      }
      long start = System.nanoTime();
      RelayCpu cpu = RelayCpu.start(a.lng("pid", -1));
      for (Publisher pub : pubs) pub.run(new ArrayDeque<>(), Long.MAX_VALUE, Promise.promise());
      // paced offering: event k is offered at start + k / rate
      int k = 0;
      for (EventLine e : batch) {
        long due = start + (long) (k / rate * 1e9);
        long wait;
        while ((wait = due - System.nanoTime()) > 0) TimeUnit.NANOSECONDS.sleep(Math.min(wait, 2_000_000));
        // same author, same publisher: versions (if any) stay in order
        pubs.get(Math.floorMod(e.pubkey().hashCode(), p)).offer(e, Long.MAX_VALUE);
        k++;
      }
      long publishEnd = System.nanoTime();
      double publishS = (publishEnd - start) / 1e9;

      // drain: until every OK and every expected delivery arrived; or nothing (no OK, no delivery) came
      // for --quiet seconds once every OK is in or the OK timeout has passed; at most --drain-max seconds
      long okDeadline = publishEnd + okTimeoutNanos + TimeUnit.SECONDS.toNanos(1);
      long hardEnd = publishEnd + Math.max(drainMaxNanos, okTimeoutNanos);
      long lastCount = -1;
      long lastChange = publishEnd;
      boolean cutOff = false;
      while (true) {
        long now = System.nanoTime();
        boolean oksDone = answered.sum() >= toSend || now > okDeadline;
        long got = deliveries.sum() + answered.sum();
        if (got != lastCount) {
          lastCount = got;
          lastChange = now;
        }
        long acc = acceptedCount.sum();
        boolean allArrived = answered.sum() >= toSend
            && subs.stream().allMatch(x -> x.closed || x.unique() >= acc);
        if (allArrived) break;
        if (oksDone && now - lastChange > quietNanos) break;
        if (now > hardEnd) {
          cutOff = now - lastChange <= quietNanos; // still arriving: lag beyond the bound, not silence
          break;
        }
        Thread.sleep(50);
      }
      Thread.sleep(300); // catch extra copies
      String trace = a.str("trace", null);
      if (trace != null) {
        writeTrace(Path.of(trace + "-" + lv.name() + ".tsv"), start, sendNanos, okNanos, okState, slowestDelivery);
      }
      double drainS = (System.nanoTime() - publishEnd) / 1e9;
      double relayCpuS = cpu.seconds();
      rss.close();

      // the verdict
      long okWithin = 0;
      long never = 0;
      List<Integer> acceptedIdx = new ArrayList<>();
      for (int i = 0; i < toSend; i++) {
        int st = okState.get(i);
        if (st == 0) never++;
        else if (okNanos.get(i) <= okTimeoutNanos) okWithin++;
        if (st == 1) acceptedIdx.add(i);
      }
      long noOkInTime = toSend - okWithin;
      long missed = 0;
      long dupConnected = 0;
      long dupClosed = 0;
      long expected = 0;
      int connected = 0;
      Map<String, Integer> closeReasons = new TreeMap<>();
      for (Subscriber sub : subs) {
        synchronized (sub) {
          if (sub.closed) {
            dupClosed += sub.dups;
            closeReasons.merge(String.valueOf(sub.closeInfo), 1, Integer::sum);
            continue;
          }
          connected++;
          dupConnected += sub.dups;
          expected += acceptedIdx.size();
          for (int i : acceptedIdx) if (!sub.got.get(i)) missed++;
        }
      }
      int closedSubs = s - connected;
      long firstSend = pc.firstSendNanos == 0 ? start : pc.firstSendNanos;
      double span = Math.max(1e-3, ((lastDelivery.get() == 0 ? System.nanoTime() : lastDelivery.get()) - firstSend) / 1e9);

      Latencies.Snapshot d = delivery.snapshot();
      r.put("events_offered", toSend).put("offered_rate", Result.round(toSend / Math.max(1e-3, publishS)))
          .put("events_sent", pc.sent.sum()).put("accepted", pc.accepted.sum()).put("duplicate", pc.duplicate.sum())
          .put("rejected", pc.rejected.sum()).put("events_okd", pc.okd())
          .put("no_ok_within_timeout", noOkInTime).put("no_ok_at_all", never)
          .put("ok_timeout_s", okTimeoutNanos / 1_000_000_000L)
          .put("deliveries", deliveries.sum()).put("deliveries_per_s", Result.round(deliveries.sum() / span))
          .put("expected_deliveries", expected).put("missed", missed).put("duplicated", dupConnected)
          .put("duplicated_on_closed", dupClosed).put("subscribers_connected", connected)
          .put("subscribers_closed", closedSubs)
          .put("history_events", history.sum()).put("subscribe_seconds", Result.round(subscribeS))
          .put("publish_seconds", Result.round(publishS)).put("drain_seconds", Result.round(drainS))
          .put("drain_cut_off", cutOff)
          .latency("delivery", d).latency("publish_ok", okLat.snapshot());
      if (!closeReasons.isEmpty()) {
        StringBuilder sb = new StringBuilder();
        closeReasons.forEach((why, n) -> sb.append(sb.length() == 0 ? "" : "; ").append(n).append(" x ").append(why));
        r.put("close_reasons", sb.toString());
      }
      rss.report(r);
      RelayCpu.put(r, "relay_cpu_us_per_delivery", relayCpuS, deliveries.sum(), 1e6);
      System.out.printf(Locale.ROOT, "fanout %s S=%d P=%d offered %.0f/s: %d offered, %d OK'd (%d without OK within %d s),"
          + " %d deliveries, %.0f deliveries/s; publish->delivery %s; EVENT->OK %s; %d subscribers closed by the relay,"
          + " %d missed and %d duplicated on the %d connected; RSS start %s MB max %s MB; drain %.1f s%n",
          lv.name(), s, p, rate, toSend, pc.okd(), noOkInTime, okTimeoutNanos / 1_000_000_000L, deliveries.sum(),
          deliveries.sum() / span, d.describe(), okLat.snapshot().describe(), closedSubs, missed, dupConnected, connected,
          rss.startKb() < 0 ? "n/a" : Long.toString(rss.startKb() / 1024),
          rss.maxKb() < 0 ? "n/a" : Long.toString(rss.maxKb() / 1024), drainS);
      if (!closeReasons.isEmpty()) System.out.println("  closed subscribers: " + r.json().getString("close_reasons"));

      if (never > 0) r.error(never + " published EVENTs got no OK at all (" + String.format(Locale.ROOT, "%.0f", drainS)
          + " s after the last was sent)");
      if (noOkInTime > never && !lv.overload()) {
        r.error((noOkInTime - never) + " published EVENTs got their OK later than " + okTimeoutNanos / 1_000_000_000L + " s");
      }
      if (pc.rejected.sum() > 0) r.error(pc.rejected.sum() + " published EVENTs got OK false (not duplicate:)");
      if (pc.closedEarly.sum() > 0) r.error("the relay closed a publishing connection");
      if (pc.duplicate.sum() > 0) r.error(pc.duplicate.sum() + " fan-out events were already stored (regenerate the file)");
      if (closedSubs > 0 && !lv.overload()) {
        r.error("the relay closed " + closedSubs + " subscribers at " + lv.name() + ": " + r.json().getString("close_reasons"));
      }
      if (missed > 0) {
        r.error(missed + " deliveries missing on the " + connected + " still connected subscribers after "
            + String.format(Locale.ROOT, "%.0f", drainS) + " s of drain " + (cutOff
                ? "(deliveries were still arriving at the --drain-max bound: the relay lags further behind than that)"
                : "(nothing more arrived for " + (quietNanos / 1_000_000_000L) + " s: OK'd events skipped or lost)"));
      }
      if (dupConnected > 0) r.error(dupConnected + " duplicate deliveries (an event sent twice on one subscription)");
      if (pc.sent.sum() == 0) r.error("no EVENT was sent");
      if (unknown.sum() > 0) problems.add(unknown.sum() + " live EVENTs not published by this run");
      if (r.failed() && !pc.samples.isEmpty()) r.error("publisher frames: " + String.join(" | ", pc.samples));
      if (r.failed() && !problems.isEmpty()) r.error("subscriber frames: " + String.join(" | ", problems));
      ending.set(true);
      pubs.forEach(Publisher::close);
      for (Subscriber sub : subs) sub.ws.close();
      Thread.sleep(200);
    } finally {
      rss.close();
    }
    return rest;
  }
}
