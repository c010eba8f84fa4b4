package dev.cairn.bench.load;

import io.vertx.core.Promise;
import io.vertx.core.http.WebSocket;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * fanout: S subscribers hold a broad filter ({@code {"kinds":[1,7],"since":<first event's created_at>}})
 * while P publishers write pre-signed events at a fixed total rate. Measures deliveries/s and
 * publish->delivery latency (the EVENT's send time at the publisher to its arrival at each subscriber,
 * same process, same clock). Gatling cannot correlate one virtual user's send with another's receive,
 * hence this Java client.
 *
 * <pre>
 * FanoutLoad --file fanout.jsonl [--url ws://...] [--subscribers 100,1000,5000] [--publishers 4]
 *            [--rate 200 | --rates 500,100,20] [--duration 20] [--drain 15] [--result-file f.jsonl]
 * </pre>
 *
 * Fails when a subscription gets no EOSE, a published EVENT gets no OK or OK false (not duplicate:),
 * the relay closes a connection, or a subscriber misses (or gets extra copies of) a published event.
 */
public final class FanoutLoad {
  public static void main(String[] argv) throws Exception {
    System.exit(run(new Args(argv)));
  }

  public static int run(Args a) throws Exception {
    String url = a.relayUrl();
    List<EventLine> remaining = EventFile.readAll(Path.of(a.required("file")), Integer.MAX_VALUE);
    String[] levels = a.str("subscribers", "100,1000,5000").split(",");
    String[] rates = a.str("rates", a.str("rate", "200")).split(",");
    int status = 0;
    for (int i = 0; i < levels.length; i++) {
      int s = Integer.parseInt(levels[i].trim());
      double rate = Double.parseDouble(rates[Math.min(i, rates.length - 1)].trim());
      Result r = new Result("fanout", "java");
      r.put("subscribers", s).put("publishers", a.integer("publishers", 4)).put("target_rate", rate).put("url", url);
      remaining = level(a, url, remaining, s, rate, r);
      status |= r.finish(a); // a failed level does not stop the next one: each is measured on its own
    }
    return status;
  }

  static final class Subscriber {
    final WebSocket ws;
    volatile boolean eose;
    volatile boolean closed;
    final java.util.concurrent.atomic.AtomicInteger received = new java.util.concurrent.atomic.AtomicInteger();

    Subscriber(WebSocket ws) {
      this.ws = ws;
    }
  }

  static List<EventLine> level(Args a, String url, List<EventLine> events, int s, double rate, Result r)
      throws Exception {
    int p = a.integer("publishers", 4);
    double durationS = a.dbl("duration", 20);
    long drainS = a.lng("drain", 15);
    int window = a.integer("window", 64);
    int toSend = (int) Math.min(events.size(), Math.ceil(rate * durationS));
    if (toSend == 0) {
      r.error("the event file is exhausted: generate more fan-out events");
      return events;
    }
    List<EventLine> batch = events.subList(0, toSend);
    long since = batch.stream().mapToLong(EventLine::createdAt).min().orElse(0);
    for (EventLine e : batch) {
      if (e.kind() != 1 && e.kind() != 7) throw new IllegalArgumentException("fan-out events must be kinds 1 and 7");
    }

    ConcurrentHashMap<String, Long> sendTimes = new ConcurrentHashMap<>();
    Latencies delivery = new Latencies();
    LongAdder deliveries = new LongAdder();
    LongAdder history = new LongAdder();
    LongAdder unknown = new LongAdder();
    LongAdder subsClosed = new LongAdder();
    AtomicLong lastDelivery = new AtomicLong();
    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    String filter = "{\"kinds\":[1,7],\"since\":" + since + "}";

    try (Ws ws = new Ws(url, s + p)) {
      // subscribers: REQ, then EOSE within 60 s
      List<Subscriber> subs;
      long t0 = System.nanoTime();
      try {
        subs = ws.connectAll(s, 128, sock -> {
          Subscriber sub = new Subscriber(sock);
          Promise<Subscriber> ready = Promise.promise();
          String subId = "fan";
          sock.textMessageHandler(f -> {
            Frames.Head h = Frames.head(f);
            if (h == null) return;
            switch (h.verb()) {
              case "EVENT" -> {
                if (!sub.eose) {
                  history.increment();
                  return;
                }
                String id = Frames.eventId(f);
                Long sent = id == null ? null : sendTimes.get(id);
                if (sent == null) {
                  unknown.increment();
                  return;
                }
                long now = System.nanoTime();
                delivery.recordNanos(now - sent);
                deliveries.increment();
                sub.received.incrementAndGet();
                lastDelivery.accumulateAndGet(now, Math::max);
              }
              case "EOSE" -> {
                sub.eose = true;
                ready.tryComplete(sub);
              }
              case "CLOSED" -> {
                if (problems.size() < 10) problems.add(Frames.abbreviate(f));
                ready.tryFail("subscription refused: " + f);
              }
              case "NOTICE" -> {
                if (problems.size() < 10) problems.add(Frames.abbreviate(f));
              }
              default -> { }
            }
          });
          sock.closeHandler(v -> {
            sub.closed = true;
            subsClosed.increment();
            ready.tryFail("relay closed the subscriber connection (" + sock.closeStatusCode() + " "
                + sock.closeReason() + ")");
          });
          sock.writeTextMessage("[\"REQ\",\"" + subId + "\"," + filter + "]");
          return ready.future();
        }).toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
      } catch (Exception e) {
        r.error("subscribers could not all subscribe: " + IngestLoad.rootMessage(e));
        return events.subList(toSend, events.size());
      }
      double subscribeS = (System.nanoTime() - t0) / 1e9;

      // publishers
      Publisher.Counters pc = new Publisher.Counters();
      Latencies okLat = new Latencies();
      List<Publisher> pubs = IngestLoad.connect(ws, p, window, pc, okLat, r);
      if (pubs == null) return events.subList(toSend, events.size());
      for (Publisher pub : pubs) pub.onSend(id -> sendTimes.put(id, System.nanoTime()));
      long start = System.nanoTime();
      long deadline = Long.MAX_VALUE;
      for (Publisher pub : pubs) pub.run(new ArrayDeque<>(), deadline, Promise.promise());
      // paced offering: event k is offered at start + k / rate
      ArrayDeque<EventLine> pending = new ArrayDeque<>(batch);
      int k = 0;
      while (!pending.isEmpty()) {
        long due = start + (long) (k / rate * 1e9);
        long wait = due - System.nanoTime();
        if (wait > 0) TimeUnit.NANOSECONDS.sleep(Math.min(wait, 5_000_000));
        if (System.nanoTime() < due) continue;
        EventLine e = pending.pollFirst();
        // same author, same publisher: versions (if any) stay in order
        pubs.get(Math.floorMod(e.pubkey().hashCode(), p)).offer(e, deadline);
        k++;
      }
      double publishS = (System.nanoTime() - start) / 1e9;
      // wait for the OKs, then for the deliveries
      long okWait = System.nanoTime() + TimeUnit.SECONDS.toNanos(drainS);
      while (pc.okd() + pc.rejected.sum() < toSend && System.nanoTime() < okWait) Thread.sleep(20);
      long expected = (long) pc.accepted.sum() * subs.size();
      long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(drainS);
      while (deliveries.sum() < expected && System.nanoTime() < drainUntil && subsClosed.sum() == 0) Thread.sleep(20);
      Thread.sleep(200); // catch extra copies
      long missingOk = toSend - pc.okd() - pc.rejected.sum();
      double span = Math.max(1e-3, ((lastDelivery.get() == 0 ? System.nanoTime() : lastDelivery.get()) - start) / 1e9);

      Latencies.Snapshot d = delivery.snapshot();
      r.put("events_published", toSend).put("accepted", pc.accepted.sum()).put("duplicate", pc.duplicate.sum())
          .put("publish_rate", Result.round(pc.okd() / publishS))
          .put("deliveries", deliveries.sum()).put("expected_deliveries", expected)
          .put("deliveries_per_s", Result.round(deliveries.sum() / span))
          .put("history_events", history.sum()).put("subscribe_seconds", Result.round(subscribeS))
          .latency("delivery", d).latency("publish_ok", okLat.snapshot());
      System.out.printf(Locale.ROOT, "fanout S=%d P=%d rate=%.0f/s: %d published, %d deliveries of %d expected, "
          + "%.0f deliveries/s; publish->delivery %s; subscribe %.1f s%n", s, p, rate, pc.okd(), deliveries.sum(),
          expected, deliveries.sum() / span, d.describe(), subscribeS);

      if (missingOk > 0) r.error(missingOk + " published EVENTs got no OK in time");
      if (pc.rejected.sum() > 0) r.error(pc.rejected.sum() + " published EVENTs got OK false (not duplicate:)");
      if (pc.closedEarly.sum() > 0) r.error("the relay closed a publishing connection");
      if (subsClosed.sum() > 0) r.error("the relay closed " + subsClosed.sum() + " subscriber connections");
      if (pc.duplicate.sum() > 0) r.error(pc.duplicate.sum() + " fan-out events were already stored (regenerate the file)");
      if (deliveries.sum() < expected) r.error((expected - deliveries.sum()) + " deliveries missing after " + drainS + " s");
      if (deliveries.sum() > expected) r.error((deliveries.sum() - expected) + " extra deliveries (an event sent twice on one subscription)");
      long wrongCount = subs.stream().filter(x -> x.received.get() != pc.accepted.sum()).count();
      if (wrongCount > 0 && deliveries.sum() == expected) {
        r.error(wrongCount + " subscribers did not get every event exactly once (total count matched)");
      }
      if (unknown.sum() > 0) problems.add(unknown.sum() + " live EVENTs not published by this run");
      if (r.failed() && !pc.samples.isEmpty()) r.error("publisher frames: " + String.join(" | ", pc.samples));
      if (r.failed() && !problems.isEmpty()) r.error("subscriber frames: " + String.join(" | ", problems));
      pubs.forEach(Publisher::close);
      for (Subscriber sub : subs) sub.ws.close();
      Thread.sleep(200);
    }
    return events.subList(toSend, events.size());
  }
}
