package dev.cairn.bench.load;

import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * One publishing connection: keeps up to {@code window} EVENTs in flight, each correlated with its
 * OK by event id; the EVENT->OK latency of each is recorded. All state lives on the socket's context.
 */
public final class Publisher {
  /** Totals shared by all publishers of a run. */
  public static final class Counters {
    public final LongAdder sent = new LongAdder();
    public final LongAdder accepted = new LongAdder();
    public final LongAdder duplicate = new LongAdder();
    public final LongAdder rejected = new LongAdder();
    public final LongAdder notices = new LongAdder();
    public final LongAdder unexpectedOk = new LongAdder();
    public final LongAdder closedEarly = new LongAdder();
    /** First few problem frames, for the report. */
    public final ConcurrentLinkedQueue<String> samples = new ConcurrentLinkedQueue<>();
    public volatile long firstSendNanos;
    public volatile long lastOkNanos;

    void sample(String what) {
      if (samples.size() < 10) samples.add(Frames.abbreviate(what));
    }

    public long okd() {
      return accepted.sum() + duplicate.sum();
    }
  }

  private record Pending(long sentNanos, String address) {}

  private final WebSocket ws;
  private final Context ctx;
  private final int window;
  private final Counters c;
  private final Latencies lat;
  private final HashMap<String, Pending> inflight = new HashMap<>();
  private final HashSet<String> inflightAddresses = new HashSet<>();
  private ArrayDeque<EventLine> queue = new ArrayDeque<>();
  private long deadlineNanos;
  private Promise<Void> batchDone;
  private boolean closed;
  /** Called with each sent event id just before it is written (fan-out uses it). */
  private Consumer<String> onSend = id -> {};
  /** Called with every OK: event id, verdict, EVENT->OK latency in nanoseconds. */
  private OkHook onOk = (id, verdict, nanos) -> {};

  /** Sees every OK of a publisher (on the publisher's context). */
  public interface OkHook {
    void ok(String id, Frames.Verdict verdict, long latencyNanos);
  }

  public Publisher(WebSocket ws, int window, Counters c, Latencies lat) {
    this.ws = ws;
    this.ctx = Vertx.currentContext();
    this.window = window;
    this.c = c;
    this.lat = lat;
    ws.textMessageHandler(this::onText);
    ws.closeHandler(v -> onClose());
    ws.exceptionHandler(t -> c.sample("socket error: " + t));
  }

  public void onSend(Consumer<String> hook) {
    this.onSend = hook;
  }

  public void onOk(OkHook hook) {
    this.onOk = hook;
  }

  /** Publishes {@code q} until it is empty or the deadline passes; completes when nothing is in flight. */
  public void run(ArrayDeque<EventLine> q, long deadline, Promise<Void> done) {
    ctx.runOnContext(v -> {
      queue = q;
      deadlineNanos = deadline;
      batchDone = done;
      if (closed) {
        done.tryComplete();
        return;
      }
      pump();
    });
  }

  /** Adds one event to the queue and sends it when the window allows (rate-driven publishing). */
  public void offer(EventLine e, long deadline) {
    ctx.runOnContext(v -> {
      deadlineNanos = deadline;
      queue.add(e);
      pump();
    });
  }

  private void pump() {
    long now = System.nanoTime();
    while (!closed && inflight.size() < window && !queue.isEmpty() && now < deadlineNanos) {
      EventLine e = queue.peekFirst();
      if (e.address() != null && inflightAddresses.contains(e.address())) break;
      if (inflight.containsKey(e.id())) break; // a second copy in the file: send it after the first's OK
      queue.pollFirst();
      if (e.address() != null) inflightAddresses.add(e.address());
      long t = System.nanoTime();
      if (c.firstSendNanos == 0) c.firstSendNanos = t;
      inflight.put(e.id(), new Pending(t, e.address()));
      c.sent.increment();
      onSend.accept(e.id());
      ws.writeTextMessage(e.frame());
    }
    if (batchDone != null && inflight.isEmpty() && (queue.isEmpty() || now >= deadlineNanos || closed)) {
      batchDone.tryComplete();
    }
  }

  private void onText(String f) {
    Frames.Ok ok = Frames.ok(f);
    if (ok == null) {
      if ("NOTICE".equals(Frames.verb(f))) {
        c.notices.increment();
        c.sample(f);
      }
      return;
    }
    Pending p = inflight.remove(ok.id());
    if (p == null) {
      c.unexpectedOk.increment();
      c.sample("unexpected " + f);
      return;
    }
    long now = System.nanoTime();
    c.lastOkNanos = now;
    lat.recordNanos(now - p.sentNanos());
    if (p.address() != null) inflightAddresses.remove(p.address());
    onOk.ok(ok.id(), ok.verdict(), now - p.sentNanos());
    switch (ok.verdict()) {
      case ACCEPTED -> c.accepted.increment();
      case DUPLICATE -> c.duplicate.increment();
      case REJECTED -> {
        c.rejected.increment();
        c.sample(f);
      }
    }
    pump();
  }

  private void onClose() {
    closed = true;
    if (!inflight.isEmpty() || !queue.isEmpty()) {
      c.closedEarly.increment();
      c.sample("relay closed a publishing connection with " + inflight.size() + " EVENTs in flight"
          + " (close code " + ws.closeStatusCode() + " " + ws.closeReason() + ")");
    }
    if (batchDone != null) batchDone.tryComplete();
  }

  /** Events sent and not answered (read on the socket's context). */
  public void missing(Consumer<Integer> out) {
    ctx.runOnContext(v -> out.accept(inflight.size()));
  }

  public void close() {
    ctx.runOnContext(v -> {
      closed = true;
      ws.close();
    });
  }
}
