package dev.cairn.bench.load;

import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PushSubscribeOptions;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * outbox (Cairn with outbox.backend=nats, docs/outbox.md): publishes pre-signed regular events over
 * WebSocket at a steady --rate for --duration seconds (open loop, --publishers connections), waits until
 * --stream holds a message per accepted event, then reads the relay's outbox messages on {@code <prefix>.>}
 * back (body {@code {"event_id","type","tenant","seq","occurred_at","payload"}}, occurred_at = epoch ms of
 * the write). Commit->JetStream latency = the time JetStream stored a message (its metadata timestamp:
 * when the broker sends the relay its PubAck) - its occurred_at (one machine, one clock; occurred_at is
 * whole ms, so up to 1 ms too high). Nothing of the tool reads the stream during the run: a consumer
 * there would take the cores being measured. Reports its p50/p90/p99/max, messages/s between the first
 * and last stored message, and the publishers' EVENT->OK latency. Deletes the stream at the end.
 *
 * <pre>
 * OutboxLoad --url ws://... --file events.jsonl --stream NAME --prefix PREFIX [--nats nats://127.0.0.1:4222]
 *            [--rate 5000] [--duration 10] [--publishers 4] [--ok-timeout 60] [--drain-max 120] [--quiet 5]
 *            [--keep-stream] [--relay-name NAME] [--result-file f.jsonl]
 * OutboxLoad --cleanup --stream NAME [--nats ...]     (delete the stream if it is there)
 * </pre>
 *
 * Fails when an EVENT gets no OK (or OK false), an accepted event has no EventStored message after the
 * drain, or the stream never appears.
 */
public final class OutboxLoad {
  public static void main(String[] argv) throws Exception {
    System.exit(run(new Args(argv)));
  }

  static Connection connect(String natsUrl) throws Exception {
    return Nats.connect(new Options.Builder().server(natsUrl).connectionTimeout(Duration.ofSeconds(5))
        .maxReconnects(-1).errorListener(new io.nats.client.ErrorListener() {}).build());
  }

  static boolean deleteStream(Connection nc, String stream) {
    try {
      return nc.jetStreamManagement().deleteStream(stream);
    } catch (JetStreamApiException e) {
      return false; // not there
    } catch (Exception e) {
      System.err.println("could not delete stream " + stream + ": " + e);
      return false;
    }
  }

  public static int run(Args a) throws Exception {
    String natsUrl = a.str("nats", "nats://127.0.0.1:4222");
    String stream = a.required("stream");
    if (a.flag("cleanup")) {
      try (Connection nc = connect(natsUrl)) {
        System.out.println("outbox: stream " + stream + (deleteStream(nc, stream) ? " deleted" : " not there"));
      }
      return 0;
    }
    String url = a.relayUrl();
    String prefix = a.required("prefix");
    double rate = a.dbl("rate", 5000);
    double durationS = a.dbl("duration", 10);
    int p = a.integer("publishers", 4);
    long okTimeoutNanos = TimeUnit.SECONDS.toNanos(a.lng("ok-timeout", 60));
    long drainMaxNanos = TimeUnit.SECONDS.toNanos(a.lng("drain-max", 120));
    long quietNanos = (long) (a.dbl("quiet", 5) * 1e9);
    int toSend = (int) Math.ceil(rate * durationS);
    List<EventLine> batch = new ArrayList<>(toSend);
    try (EventFile f = new EventFile(Path.of(a.required("file")))) {
      List<EventLine> chunk;
      while (batch.size() < toSend && !(chunk = f.next(50_000)).isEmpty()) {
        for (EventLine e : chunk) {
          if (e.address() == null && batch.size() < toSend) batch.add(e); // regular events: no ordering holds
        }
      }
    }
    Result r = new Result("outbox", "java").put("level", "rate" + (long) rate).put("target_rate", rate)
        .put("publishers", p).put("url", url).put("stream", stream).put("subject", prefix + ".>");
    if (batch.size() < toSend) {
      r.error("the event file has only " + batch.size() + " regular events, " + toSend + " needed");
      return r.finish(a);
    }
    Set<String> ids = new HashSet<>();
    for (EventLine e : batch) ids.add(e.id());

    Connection nc;
    try {
      nc = connect(natsUrl);
    } catch (Exception e) {
      r.error("cannot connect to NATS at " + natsUrl + ": " + e);
      return r.finish(a);
    }
    try {
      JetStreamManagement jsm = nc.jetStreamManagement();
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      boolean there = false;
      while (!there && System.nanoTime() < until) {
        try {
          jsm.getStreamInfo(stream);
          there = true;
        } catch (JetStreamApiException e) {
          Thread.sleep(200);
        }
      }
      if (!there) {
        r.error("stream " + stream + " did not appear within 30 s (is the relay on outbox.backend=nats?)");
        return r.finish(a);
      }
      long before = streamMessages(jsm, stream); // a relay used before: its messages are not this run's
      long sinceMs = System.currentTimeMillis();
      Publisher.Counters pc = new Publisher.Counters();
      Latencies okLat = new Latencies();
      LongAdder lateOk = new LongAdder();
      try (Ws ws = new Ws(url, p)) {
        List<Publisher> pubs = IngestLoad.connect(ws, p, Integer.MAX_VALUE, pc, okLat, r);
        if (pubs == null) return r.finish(a);
        for (Publisher pub : pubs) {
          pub.onOk((id, verdict, nanos) -> {
            if (nanos > okTimeoutNanos) lateOk.increment();
          });
          pub.run(new ArrayDeque<>(), Long.MAX_VALUE, Promise.promise());
        }
        long start = System.nanoTime();
        int k = 0;
        for (EventLine e : batch) {
          long due = start + (long) (k / rate * 1e9);
          long wait;
          while ((wait = due - System.nanoTime()) > 0) TimeUnit.NANOSECONDS.sleep(Math.min(wait, 2_000_000));
          pubs.get(k % p).offer(e, Long.MAX_VALUE);
          k++;
        }
        long publishEnd = System.nanoTime();
        double publishS = (publishEnd - start) / 1e9;
        long okDeadline = publishEnd + okTimeoutNanos + TimeUnit.SECONDS.toNanos(1);
        long hardEnd = publishEnd + Math.max(drainMaxNanos, okTimeoutNanos);
        long lastCount = -1;
        long lastChange = publishEnd;
        while (true) {
          long now = System.nanoTime();
          long answered = pc.okd() + pc.rejected.sum();
          boolean oksDone = answered >= toSend || now > okDeadline;
          long m = streamMessages(jsm, stream) - before + answered;
          if (m != lastCount) {
            lastCount = m;
            lastChange = now;
          }
          if (answered >= toSend && streamMessages(jsm, stream) - before >= pc.accepted.sum()) break;
          if (oksDone && now - lastChange > quietNanos) break;
          if (now > hardEnd) break;
          Thread.sleep(50);
        }
        Thread.sleep(200);
        // Read only now: a consumer running beside the relay would take the cores the figure is about.
        StreamTally t = StreamTally.read(nc.jetStream(), jsm, stream, prefix, ids, sinceMs);
        long missingOk = toSend - pc.okd() - pc.rejected.sum();
        long missingMsgs = ids.stream().filter(id -> !t.storedIds.contains(id)).count();
        long firstSend = pc.firstSendNanos == 0 ? start : pc.firstSendNanos;
        double span = Math.max(1e-3, (t.lastStoredNanos - t.firstStoredNanos) / 1e9); // stored timestamps
        double okSpan = Math.max(1e-3, ((pc.lastOkNanos == 0 ? System.nanoTime() : pc.lastOkNanos) - firstSend) / 1e9);
        Latencies.Snapshot lat = t.commitToJs.snapshot();
        String perSecond = t.bySecond.describe();
        r.put("events_offered", toSend).put("offered_rate", Result.round(toSend / Math.max(1e-3, publishS)))
            .put("accepted", pc.accepted.sum()).put("duplicate", pc.duplicate.sum()).put("rejected", pc.rejected.sum())
            .put("accepted_per_s", Result.round(pc.accepted.sum() / okSpan))
            .put("messages", t.messages).put("stored_messages", t.storedMessages)
            .put("other_messages", t.otherMessages).put("duplicate_stored_messages", t.duplicateStored)
            .put("messages_per_s", Result.round(t.messages / span)).put("missing_messages", missingMsgs)
            .put("no_ok_within_timeout", missingOk + lateOk.sum())
            .put("commit_js_p50_p99_ms_by_second", perSecond).latency("commit_js", lat).latency("publish_ok", okLat.snapshot());
        System.out.printf(Locale.ROOT, "outbox %.0f/s offered for %.1f s: %d accepted (%.0f/s), %d JetStream messages "
            + "(%.0f/s), %d accepted events without message; commit->JetStream %s; EVENT->OK %s%n", rate, publishS,
            pc.accepted.sum(), pc.accepted.sum() / okSpan, t.messages, t.messages / span, missingMsgs,
            lat.describe(), okLat.snapshot().describe());
        System.out.println("commit->JetStream p50/p99 ms by second of the writes: " + perSecond);
        if (missingOk > 0) r.error(missingOk + " EVENTs got no OK");
        if (lateOk.sum() > 0) r.error(lateOk.sum() + " EVENTs got their OK later than " + okTimeoutNanos / 1_000_000_000L + " s");
        if (pc.rejected.sum() > 0) r.error(pc.rejected.sum() + " EVENTs got OK false (not duplicate:)");
        if (pc.closedEarly.sum() > 0) r.error("the relay closed a publishing connection");
        if (missingMsgs > 0 && pc.accepted.sum() > 0) {
          r.error(missingMsgs + " events have no EventStored message on " + prefix + ".> after the drain");
        }
        if (t.messages == 0) r.error("no message arrived on " + prefix + ".>");
        if (!t.problems.isEmpty()) r.error(String.join(" | ", t.problems));
        if (r.failed() && !pc.samples.isEmpty()) r.error("publisher frames: " + String.join(" | ", pc.samples));
        pubs.forEach(Publisher::close);
        Thread.sleep(100);
      }
      return r.finish(a);
    } finally {
      if (!a.flag("keep-stream")) {
        System.out.println("outbox: stream " + stream + (deleteStream(nc, stream) ? " deleted" : " not deleted"));
      }
      nc.close();
    }
  }

  /** Messages the stream holds now (0 while it cannot be asked). */
  static long streamMessages(JetStreamManagement jsm, String stream) {
    try {
      return jsm.getStreamInfo(stream).getStreamState().getMsgCount();
    } catch (Exception e) {
      return 0;
    }
  }

  /**
   * This run's messages in the stream, read once after the run: commit->JetStream per message = the time
   * the stream stored it (its metadata timestamp: the moment the broker sends the relay its PubAck) - its
   * {@code occurred_at} (ms, the write). A message is this run's when it is the EventStored of one of
   * {@code ids}, or another type written since {@code sinceMs}; the rest (a relay used before) is skipped.
   */
  static final class StreamTally {
    final Latencies commitToJs = new Latencies();
    /** By the second of occurred_at. */
    final LatencyBySecond bySecond = new LatencyBySecond();
    final Set<String> storedIds = new HashSet<>();
    final List<String> problems = new ArrayList<>();
    long messages;
    long storedMessages;
    long otherMessages;
    long duplicateStored;
    long unreadable;
    long firstStoredNanos = Long.MAX_VALUE;
    long lastStoredNanos;

    static StreamTally read(JetStream js, JetStreamManagement jsm, String stream, String prefix, Set<String> ids,
        long sinceMs) throws Exception {
      StreamTally t = new StreamTally();
      long expected = streamMessages(jsm, stream);
      JetStreamSubscription sub = js.subscribe(prefix + ".>",
          PushSubscribeOptions.builder().stream(stream).ordered(true).build());
      try {
        for (long read = 0; read < expected; read++) {
          Message msg = sub.nextMessage(Duration.ofSeconds(5));
          if (msg == null) {
            t.problems.add("the stream held " + expected + " messages, " + read + " read back");
            break;
          }
          t.add(msg, ids, sinceMs);
        }
      } finally {
        sub.unsubscribe();
      }
      if (t.unreadable > 0) t.problems.add(t.unreadable + " unreadable messages");
      return t;
    }

    private void add(Message msg, Set<String> ids, long sinceMs) {
      Instant stored = msg.metaData().timestamp().toInstant();
      long storedNanos = stored.getEpochSecond() * 1_000_000_000L + stored.getNano();
      try {
        JsonObject body = new JsonObject(new String(msg.getData(), StandardCharsets.UTF_8));
        long occurredMs = body.getLong("occurred_at");
        boolean eventStored = "EventStored".equals(body.getString("type"));
        JsonObject payload = body.getJsonObject("payload");
        String id = payload == null ? null : payload.getString("id");
        if (eventStored ? !ids.contains(id) : occurredMs < sinceMs) {
          return; // written before this run
        }
        messages++;
        firstStoredNanos = Math.min(firstStoredNanos, storedNanos);
        lastStoredNanos = Math.max(lastStoredNanos, storedNanos);
        long nanos = storedNanos - occurredMs * 1_000_000L;
        commitToJs.recordNanos(nanos);
        bySecond.record(occurredMs, nanos);
        if (eventStored) {
          storedMessages++;
          if (!storedIds.add(id)) duplicateStored++;
        } else {
          otherMessages++;
        }
      } catch (RuntimeException e) {
        if (unreadable++ < 5) problems.add("unreadable message on " + msg.getSubject() + ": " + e);
      }
    }
  }
}
