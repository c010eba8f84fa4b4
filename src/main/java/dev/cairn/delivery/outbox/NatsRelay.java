package dev.cairn.delivery.outbox;

import dev.cairn.config.RepeatedFailureLog;
import dev.cairn.store.outbox.OutboxRow;
import dev.cairn.store.outbox.Settlement;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.PublishOptions;
import io.nats.client.impl.Headers;
import io.nats.client.support.Status;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.WorkerExecutor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code outbox.backend=nats}: claims due rows and publishes them, subject {@code <prefix>.<tenant>.<type>},
 * header {@code Nats-Msg-Id: <event_id>} (JetStream drops a repeat inside the 1 h duplicate window),
 * then marks them done. {@code nats.mode=core} publishes fire-and-forget and marks done after the
 * publish. A transport failure never spends an attempt: the row is deferred with a growing backoff and
 * the relay pauses until NATS is back. jnats calls run on {@code worker}; acks complete back onto
 * delivery's context.
 */
final class NatsRelay {
  private static final Logger LOG = Logger.getLogger(NatsRelay.class.getName());
  static final long PUBLISH_TIMEOUT_MS = 5_000;
  /**
   * Claimed-on-write rows published and not yet settled at most, in {@code outbox.batch} rows each (16,384
   * at the default 256): past it, or past {@link #MAX_IN_FLIGHT_BYTES}, a commit's rows are handed back to
   * the claim loop, which delivers them a batch per writer round trip, slower than a busy store commits
   * them. Under a saturated host the broker's PubAcks lag by up to half a second (measured: 5,000 events/s
   * with nats-server, the relay and the load on two cores); the 4,096 rows allowed before (0.8 s of that
   * traffic) were reached in one run in three, and its handed-back rows reached JetStream 1.1-1.5 s after
   * their commit (decision 0008, revision of 5 December).
   */
  static final int MAX_IN_FLIGHT_BATCHES = 64;
  /**
   * Bytes of message bodies published and not yet settled at most (64 MiB): events up to
   * {@code limits.max_message_length} make a row count alone no bound on memory.
   */
  static final long MAX_IN_FLIGHT_BYTES = 64L << 20;
  /** Repeats of a publish or settle failure are summed up at most this often ({@link RepeatedFailureLog}). */
  static final long FAILURE_LOG_INTERVAL_MS = 10_000;

  private final Context context;
  private final WorkerExecutor worker;
  private final DbClient db;
  private final NatsLink link;
  private final OutboxSettings settings;
  private final OutboxMetrics metrics;
  /** Called (on delivery's context) when the broker answered a publish "no responders": no stream takes the subject. */
  private final Runnable streamMissing;
  /**
   * Rounds of transport failures in a row, and until when the current round defers its rows: every batch in
   * flight when the broker stalls or goes away fails at about the same moment, and they are one failure
   * of the transport, not one each. Counted per batch, the 64 batches a stall caught deferred their rows
   * 30 s (the cap) at the first stall, however short.
   */
  private int outageStreak;
  private long outageUntil;
  /** Per tenant: its batches that could not be published, and its published rows that could not be settled. */
  private final Map<String, RepeatedFailureLog> publishFailures = new HashMap<>();
  private final Map<String, RepeatedFailureLog> settleFailures = new HashMap<>();
  /** Claimed-on-write rows published and not yet settled (acks, then the settle transaction), and their bodies' bytes. */
  private long inFlight;
  private long inFlightBytes;

  NatsRelay(Context context, WorkerExecutor worker, DbClient db, NatsLink link, OutboxSettings settings,
      OutboxMetrics metrics, Runnable streamMissing) {
    this.context = context;
    this.worker = worker;
    this.db = db;
    this.link = link;
    this.settings = settings;
    this.metrics = metrics;
    this.streamMissing = streamMissing;
  }

  /** Connected again: the next failure starts the backoff over. */
  void resetBackoff() {
    outageStreak = 0;
    outageUntil = 0;
  }

  Future<Long> cycle(String tenant) {
    if (!link.up()) {
      return Future.succeededFuture(OutboxPump.IDLE); // the link wakes every tenant when it is back
    }
    return db.claimDue(tenant, settings.batch(), settings.claimLeaseMs(), false).compose(claim -> {
      if (claim.rows().isEmpty()) {
        return Future.succeededFuture(claim.nextDueMs() < 0 ? OutboxPump.IDLE : claim.nextDueMs());
      }
      return publish(tenant, claim.rows()).compose(acks -> {
        Future<Long> settled = settlePublished(tenant, claim.rows(), acks);
        if (claim.rows().size() == settings.batch() && !acks.ok().contains(false)) {
          // A full batch: claim the next one now. The engine runs a tenant's outbox commands in order
          // and groups those that queue up into one transaction, so this settle and the next claim
          // usually commit together: one writer round trip per batch instead of two.
          return Future.succeededFuture(OutboxPump.AGAIN);
        }
        return settled.map(wait -> wait >= 0 ? wait : claim.nextDueMs());
      });
    });
  }

  /**
   * Rows a commit wrote already claimed by this process, with their bodies: published at once. Rows
   * that cannot go now (NATS down, or {@link #MAX_IN_FLIGHT_BATCHES} batches or
   * {@link #MAX_IN_FLIGHT_BYTES} not yet settled; a commit's rows go anyway when nothing is in flight) are
   * handed back to the claim loop (pending, due now, no attempt spent). Completes with when the claim loop
   * should look again ({@link OutboxPump#IDLE}: no need).
   */
  Future<Long> relayClaimed(String tenant, List<OutboxRow> rows) {
    long bytes = bodyBytes(rows);
    if (!link.up() || inFlight + rows.size() > (long) settings.batch() * MAX_IN_FLIGHT_BATCHES
        || (inFlight > 0 && inFlightBytes + bytes > MAX_IN_FLIGHT_BYTES)) {
      long now = System.currentTimeMillis();
      List<Settlement> back = rows.stream()
          .map(r -> Settlement.defer(r, now, link.up() ? "relay busy" : "NATS unreachable")).toList();
      return db.settle(tenant, back).map(x -> now);
    }
    inFlight += rows.size();
    inFlightBytes += bytes;
    return publish(tenant, rows)
        .compose(acks -> settlePublished(tenant, rows, acks))
        .eventually(() -> {
          inFlight -= rows.size();
          inFlightBytes -= bytes;
          return Future.succeededFuture();
        });
  }

  private static long bodyBytes(List<OutboxRow> rows) {
    long bytes = 0;
    for (OutboxRow r : rows) {
      bytes += r.body().length;
    }
    return bytes;
  }

  /**
   * Whether a failed publish was answered "503 No Responders": nothing subscribes to the subject, i.e. no
   * stream takes it (jnats reports the status as the text of an IOException, with no type of its own).
   */
  private static boolean noResponders(CompletableFuture<?> failed) {
    try {
      failed.join();
      return false;
    } catch (CompletionException | CancellationException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t.getMessage() != null && t.getMessage().contains(Status.NO_RESPONDERS_TEXT)) {
          return true;
        }
      }
      return false;
    }
  }

  /**
   * Settles published rows (done, or deferred with the outage backoff without spending an attempt) and
   * counts them; completes once settled with until when rows were deferred, -1 if none was. The settle's
   * own failure only delays: the rows are claimed again after the lease and republished (the broker
   * drops the repeats).
   */
  private Future<Long> settlePublished(String tenant, List<OutboxRow> rows, Acks acks) {
    List<Boolean> ok = acks.ok();
    String reason = acks.noStream() ? "JetStream stream " + settings.stream() + " not found" : "NATS unreachable";
    List<Settlement> settlements = new ArrayList<>(ok.size());
    int published = 0;
    long deferUntil = -1;
    for (int i = 0; i < ok.size(); i++) {
      OutboxRow row = rows.get(i);
      if (ok.get(i)) {
        settlements.add(Settlement.done(row));
        published++;
      } else {
        if (deferUntil < 0) {
          deferUntil = deferral(acks.noStream());
        }
        settlements.add(Settlement.defer(row, deferUntil, reason));
      }
    }
    long now = System.currentTimeMillis();
    RepeatedFailureLog publishLog = failureLog(publishFailures, tenant, "outbox: publishing rows of tenant ");
    if (deferUntil < 0) {
      resetBackoff();
      publishLog.succeeded(now);
    } else {
      publishLog.failed((ok.size() - published) + " row(s) could not be published (" + reason
          + "); deferred without spending an attempt (retry in " + (deferUntil - now) + " ms)", null, now);
    }
    int count = published;
    long wait = deferUntil;
    RepeatedFailureLog settleLog = failureLog(settleFailures, tenant, "outbox: settling published rows of tenant ");
    return db.settle(tenant, settlements)
        .onSuccess(x -> {
          metrics.published(OutboxSettings.NATS, count);
          settleLog.succeeded(System.currentTimeMillis());
        })
        .onFailure(t -> settleLog.failed(settlements.size() + " row(s) not settled (" + t.getMessage()
            + "); they are claimed again after the lease and republished (the broker drops the repeats)", null,
            System.currentTimeMillis()))
        .transform(ar -> Future.succeededFuture(wait));
  }

  /**
   * Until when a failed batch's rows wait: a missing stream is being created again ({@code streamMissing}),
   * a short wait; a transport failure waits out the current round, or starts the next, longer one
   * ({@link RetryPolicy#outageBackoff}).
   */
  private long deferral(boolean noStream) {
    long now = System.currentTimeMillis();
    if (noStream) {
      return now + RetryPolicy.outageBackoff(1).toMillis();
    }
    if (now >= outageUntil) {
      outageUntil = now + RetryPolicy.outageBackoff(++outageStreak).toMillis();
    }
    return outageUntil;
  }

  private static RepeatedFailureLog failureLog(Map<String, RepeatedFailureLog> logs, String tenant, String what) {
    return logs.computeIfAbsent(tenant, t -> new RepeatedFailureLog(LOG, Level.WARNING, what + t, FAILURE_LOG_INTERVAL_MS));
  }

  /** Per published row, whether the broker has it; whether a failure was "no responders" (no stream takes the subject). */
  private record Acks(List<Boolean> ok, boolean noStream) {}

  /** Publishes every row of {@code tenant} (its subject names it). */
  private Future<Acks> publish(String tenant, List<OutboxRow> rows) {
    Connection nc = link.connection();
    boolean core = OutboxSettings.CORE.equals(settings.natsMode());
    return worker.<List<CompletableFuture<?>>>executeBlocking(() -> {
      List<CompletableFuture<?>> acks = new ArrayList<>(rows.size());
      JetStream js = core ? null : link.jetStream();
      for (OutboxRow row : rows) {
        String subject = settings.subject(tenant, row.type());
        byte[] body = row.body();
        try {
          if (core) {
            Headers h = new Headers();
            if (row.eventId() != null) {
              h.put("Nats-Msg-Id", row.eventId());
            }
            nc.publish(subject, h, body);
            acks.add(CompletableFuture.completedFuture(null));
          } else {
            PublishOptions.Builder po = PublishOptions.builder().expectedStream(settings.stream());
            if (row.eventId() != null) {
              po.messageId(row.eventId());
            }
            acks.add(js.publishAsync(subject, body, po.build()).orTimeout(PUBLISH_TIMEOUT_MS, TimeUnit.MILLISECONDS));
          }
        } catch (RuntimeException e) {
          acks.add(CompletableFuture.failedFuture(e));
        }
      }
      return acks;
    }, true).compose(acks -> {
      Promise<Acks> done = Promise.promise();
      CompletableFuture.allOf(acks.stream().map(f -> f.handle((r, t) -> null)).toArray(CompletableFuture[]::new))
          .whenComplete((x, t) -> context.runOnContext(v -> {
            List<Boolean> ok = new ArrayList<>(acks.size());
            boolean noStream = false;
            for (CompletableFuture<?> f : acks) {
              ok.add(!f.isCompletedExceptionally());
              noStream |= f.isCompletedExceptionally() && noResponders(f);
            }
            if (noStream) {
              streamMissing.run();
            }
            done.complete(new Acks(ok, noStream));
          }));
      return done.future();
    });
  }
}
