package dev.cairn.store.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The writer side: coalescing per tenant and window, batched rows, failures that never reach the caller. */
class NotifyOutboxTest extends SignalTestBase {

  @Test
  void manyNotifiesBecomeAtMostOneRowPerTenantPerWindow() throws Exception {
    SignalSettings s = fast("pod-a", Duration.ofMinutes(10), Duration.ofHours(1));
    NotifyOutbox outbox = new NotifyOutbox(vertx, pod(), s, new SignalMetrics(registry()));
    long windowMs = s.notifyCoalesce().toMillis();
    // ~1 s of notifies, 2000 per tenant: without coalescing that is 2000 rows each.
    long end = System.nanoTime() + Duration.ofSeconds(1).toNanos();
    int calls = 0;
    while (System.nanoTime() < end) {
      outbox.notify("alpha");
      outbox.notify("beta");
      calls++;
      if (calls % 100 == 0) {
        Thread.sleep(5);
      }
    }
    assertTrue(eventually(Duration.ofSeconds(5), () -> outbox.pending() == 0), "pending tenants flushed");
    await(outbox.close());
    for (String t : List.of("alpha", "beta")) {
      List<Long> at = new ArrayList<>();
      for (Row r : await(meta.preparedQuery("SELECT created_at FROM tenant_notify_outbox WHERE tenant_id = ?"
          + " ORDER BY id").execute(io.vertx.sqlclient.Tuple.of(t)))) {
        at.add(r.getLong(0));
      }
      // 1 s / 200 ms windows: 5 or 6 rows (plus one for the window the loop ended in), never hundreds.
      assertTrue(at.size() >= 2 && at.size() <= 8, t + ": rows " + at.size() + " for " + calls + " notifies");
      for (int i = 1; i < at.size(); i++) {
        // created_at is ms; the flush spacing is measured in nanos, so allow 1 ms of rounding.
        assertTrue(at.get(i) - at.get(i - 1) >= windowMs - 1, t + ": two rows within one window: " + at);
      }
    }
  }

  @Test
  void theFirstNotifyAfterAQuietSpellIsWrittenAtOnce() throws Exception {
    SignalSettings s = new SignalSettings("pod-a", Duration.ofSeconds(5), Duration.ofMillis(50), 500, 20,
        Duration.ofMillis(300), Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(30),
        Duration.ofMinutes(10), Duration.ofHours(1), Duration.ofHours(1), 5_000, 20, Duration.ZERO);
    NotifyOutbox outbox = new NotifyOutbox(vertx, pod(), s, new SignalMetrics(registry()));
    outbox.notify("alpha");
    // A 5 s window, but the leading notify does not wait for it.
    assertTrue(eventually(Duration.ofSeconds(2), () -> count("SELECT COUNT(*) FROM tenant_notify_outbox") == 1));
    outbox.notify("alpha");
    outbox.notify("beta");
    Thread.sleep(300);
    assertEquals(1, count("SELECT COUNT(*) FROM tenant_notify_outbox"), "the second notify waits for the window");
    await(outbox.close()); // close writes what is pending without waiting
    assertEquals(3, count("SELECT COUNT(*) FROM tenant_notify_outbox"));
    assertEquals(NotifyOutbox.WORK_FEED,
        await(meta.query("SELECT MIN(work) FROM tenant_notify_outbox").execute()).iterator().next().getString(0));
  }

  @Test
  void aFailedInsertIsCountedAndRetriedNeverThrown() throws Exception {
    SimpleMeterRegistry reg = registry();
    Pool broken = pod();
    await(meta.query("RENAME TABLE tenant_notify_outbox TO tenant_notify_outbox_away").execute());
    NotifyOutbox outbox = new NotifyOutbox(vertx, broken, fast("pod-a", Duration.ofMinutes(10), Duration.ofHours(1)),
        new SignalMetrics(reg));
    outbox.notify("alpha"); // must not throw
    assertTrue(eventually(Duration.ofSeconds(5),
        () -> reg.find("cairn_signal_errors_total").tag("op", "notify").counter() != null
            && reg.find("cairn_signal_errors_total").tag("op", "notify").counter().count() >= 1));
    await(meta.query("RENAME TABLE tenant_notify_outbox_away TO tenant_notify_outbox").execute());
    assertTrue(eventually(Duration.ofSeconds(5),
        () -> count("SELECT COUNT(*) FROM tenant_notify_outbox WHERE tenant_id = 'alpha'") == 1),
        "retried once the table is back");
    await(outbox.close());
  }
}
