package dev.cairn.store.signal;

import io.vertx.core.Vertx;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Seed 003 item 4's optional liveness poll (P1, off by default): against signal loss (meta DB down, a
 * poller stuck), every {@code livenessPoll} wake the tenants that have a local SSE session and were not
 * woken within that interval. It only reaches tenant DBs of tenants with a connected client, but it is
 * a standing poll on otherwise quiet DBs: that trade-off is why it is off unless configured.
 *
 * <p>Wiring: give the poller {@link #tracking()} as its wake callback, so poller wakes count as recent.
 */
public final class LivenessPoll {
  private final Vertx vertx;
  private final long intervalMillis;
  private final Consumer<Set<String>> wake;
  private final Supplier<Set<String>> localTenants;
  private final Map<String, Long> lastWoken = new ConcurrentHashMap<>();
  private volatile long timer = -1;

  public LivenessPoll(Vertx vertx, SignalSettings settings, Consumer<Set<String>> wake,
      Supplier<Set<String>> localTenants) {
    this.vertx = vertx;
    this.intervalMillis = settings.livenessPoll().toMillis();
    this.wake = wake;
    this.localTenants = localTenants;
  }

  public boolean enabled() {
    return intervalMillis > 0;
  }

  /** {@code wake}, remembering when each tenant was woken. */
  public Consumer<Set<String>> tracking() {
    return tenants -> {
      long now = System.currentTimeMillis();
      for (String t : tenants) {
        lastWoken.put(t, now);
      }
      wake.accept(tenants);
    };
  }

  /** Starts the periodic check; does nothing when the poll is off. */
  public void start() {
    if (enabled() && timer < 0) {
      timer = vertx.setPeriodic(intervalMillis, id -> check());
    }
  }

  public void stop() {
    long t = timer;
    if (t >= 0) {
      vertx.cancelTimer(t);
      timer = -1;
    }
  }

  /** One check now: wakes and returns the local tenants not woken within the interval. */
  public Set<String> check() {
    long now = System.currentTimeMillis();
    Set<String> local = localTenants.get();
    lastWoken.keySet().retainAll(local); // forget tenants whose sessions are gone: the map stays bounded
    Set<String> due = new HashSet<>();
    for (String t : local) {
      Long at = lastWoken.get(t);
      if (at == null || now - at >= intervalMillis) {
        due.add(t);
      }
    }
    if (!due.isEmpty()) {
      tracking().accept(Set.copyOf(due));
    }
    return due;
  }
}
