package dev.cairn.delivery.outbox;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Paces one outbox loop (relay or db consumer) per tenant on delivery's event loop: at most one cycle
 * runs per tenant; a wake during a cycle runs another right after; otherwise the next cycle is a
 * one-shot timer at the earliest due row the last cycle saw. No standing poll over the tenant DBs.
 */
final class OutboxPump {
  /** A cycle's answer: {@link #AGAIN} (more is due now), {@link #IDLE} (nothing due), or the next due time (ms). */
  static final long AGAIN = 0;
  static final long IDLE = -1;
  private static final long ERROR_BACKOFF_MS = 1_000;

  private static final class State {
    boolean running;
    boolean again;
    long timer = -1;
    long timerAt;
  }

  private final Vertx vertx;
  private final Function<String, Future<Long>> cycle;
  private final Map<String, State> states = new HashMap<>();
  private boolean stopped;

  OutboxPump(Vertx vertx, Function<String, Future<Long>> cycle) {
    this.vertx = vertx;
    this.cycle = cycle;
  }

  void wake(String tenant) {
    State s = states.computeIfAbsent(tenant, t -> new State());
    if (stopped) {
      return;
    }
    if (s.running) {
      s.again = true;
      return;
    }
    if (s.timer >= 0) {
      vertx.cancelTimer(s.timer);
      s.timer = -1;
    }
    s.running = true;
    Future<Long> f;
    try {
      f = cycle.apply(tenant);
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    f.onComplete(ar -> {
      s.running = false;
      long next = ar.succeeded() ? ar.result() : System.currentTimeMillis() + ERROR_BACKOFF_MS;
      if (s.again || next == AGAIN) {
        s.again = false;
        vertx.runOnContext(v -> wake(tenant));
      } else if (next > 0) {
        schedule(tenant, s, next);
      }
    });
  }

  private void schedule(String tenant, State s, long at) {
    if (stopped || (s.timer >= 0 && s.timerAt <= at)) {
      return;
    }
    if (s.timer >= 0) {
      vertx.cancelTimer(s.timer);
    }
    s.timerAt = at;
    s.timer = vertx.setTimer(Math.max(1, at - System.currentTimeMillis()), id -> {
      s.timer = -1;
      wake(tenant);
    });
  }

  void stop() {
    stopped = true;
    for (State s : states.values()) {
      if (s.timer >= 0) {
        vertx.cancelTimer(s.timer);
      }
    }
  }
}
