package dev.cairn.store.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** The prune floor: retention, fresh cursors hold it, stalled cursors do not; a stalled poller wakes all on resume. */
class NotifyPrunerTest extends SignalTestBase {
  private static final String INSERT =
      "INSERT INTO tenant_notify_outbox (tenant_id, work, created_at) VALUES (?, 'feed', ?)";

  @Test
  void rowsGoAfterRetentionOnlyBelowTheFloorInBatches() throws Exception {
    long now = System.currentTimeMillis();
    long old = now - Duration.ofHours(2).toMillis();
    for (int i = 0; i < 7; i++) {
      await(meta.preparedQuery(INSERT).execute(Tuple.of("t" + i, old)));
    }
    await(meta.preparedQuery(INSERT).execute(Tuple.of("young", now))); // id 8, within the 1 h retention
    // A fresh cursor at 5: rows 6 and 7 are old but not yet read by that pod.
    await(meta.preparedQuery("INSERT INTO tenant_outbox_cursor VALUES ('pod-b', 5, ?)").execute(Tuple.of(now)));
    SimpleMeterRegistry reg = registry();
    SignalSettings s = new SignalSettings("pod-a", Duration.ofMillis(200), Duration.ofMillis(50), 500, 20,
        Duration.ofMillis(300), Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(30),
        Duration.ofMinutes(10), Duration.ofHours(1), Duration.ofHours(1), 2, 20, Duration.ZERO);
    NotifyPruner pruner = new NotifyPruner(vertx, pod(), s, new SignalMetrics(reg));
    assertEquals(5L, await(pruner.prune()), "batches of 2 until a short one");
    assertEquals(3, count("SELECT COUNT(*) FROM tenant_notify_outbox"));
    assertEquals(6, count("SELECT MIN(id) FROM tenant_notify_outbox"));
    double age = reg.get("cairn_notify_outbox_oldest_age_seconds").gauge().value();
    assertTrue(age >= 7190 && age <= 7300, "oldest row (id 6) is ~2 h old: " + age);
    // The cursor moves past 7: those go, the young row stays (retention).
    await(meta.query("UPDATE tenant_outbox_cursor SET last_id = 8").execute());
    assertEquals(2L, await(pruner.prune()));
    assertEquals(8, count("SELECT MIN(id) FROM tenant_notify_outbox"));
    assertTrue(reg.get("cairn_notify_outbox_oldest_age_seconds").gauge().value() < 60);
  }

  @Test
  void aStalledPodDoesNotPinTheFloorAndWakesItsTenantsWhenItResumes() throws Exception {
    Duration stall = Duration.ofSeconds(2);
    Duration retention = Duration.ofMillis(1);
    Map<String, Integer> wokenA = new ConcurrentHashMap<>();
    Map<String, Integer> wokenB = new ConcurrentHashMap<>();
    // The pruner ignores cursors older than `stall`. A poller wakes all once its own cursor is older than
    // half its bound: A's bound is twice the pruner's, so the stall the pruner acts on is exactly what A
    // detects; B's is long, so a slow tick on a loaded CI host does not count as a stall of B.
    SignalSettings prune = fast("pod-a", stall, retention);
    SignalSettings a = fast("pod-a", stall.multipliedBy(2), retention);
    SignalSettings b = fast("pod-b", Duration.ofSeconds(60), retention);
    NotifyPoller pollerA = new NotifyPoller(vertx, pod(), a, new SignalMetrics(registry()),
        ts -> ts.forEach(t -> wokenA.merge(t, 1, Integer::sum)), () -> Set.of("x", "y"));
    NotifyPoller pollerB = new NotifyPoller(vertx, pod(), b, new SignalMetrics(registry()),
        ts -> ts.forEach(t -> wokenB.merge(t, 1, Integer::sum)), () -> Set.of("x"));
    started(pollerA);
    started(pollerB);
    pollerA.pause(); // A's event loop "stalls": no reads, no cursor writes; its heartbeat is not involved
    await(meta.preparedQuery(INSERT).execute(Tuple.of("x", System.currentTimeMillis())));
    long id = count("SELECT MAX(id) FROM tenant_notify_outbox");
    assertTrue(eventually(Duration.ofSeconds(3), () -> wokenB.containsKey("x")), "B read the row");
    assertTrue(eventually(Duration.ofSeconds(3),
        () -> count("SELECT last_id FROM tenant_outbox_cursor WHERE pod_id = 'pod-b'") == id), "B's cursor passed it");
    long cursorA = count("SELECT last_id FROM tenant_outbox_cursor WHERE pod_id = 'pod-a'");
    assertTrue(cursorA < id);
    long cursorAWrittenAt = count("SELECT updated_at FROM tenant_outbox_cursor WHERE pod_id = 'pod-a'");
    NotifyPruner pruner = new NotifyPruner(vertx, pod(), prune, new SignalMetrics(registry()));
    if (System.currentTimeMillis() - cursorAWrittenAt < stall.toMillis() - 300) {
      // While A's cursor is fresh, it holds the floor below the row.
      assertEquals(0L, await(pruner.prune()), "a fresh cursor pins the floor");
    }
    // Once A's cursor is older than the stall bound, it is ignored: the row goes past A's cursor.
    assertTrue(eventually(Duration.ofSeconds(10), () -> await(pruner.prune()) == 1), "pruned past the stalled pod");
    assertEquals(0, count("SELECT COUNT(*) FROM tenant_notify_outbox"));
    assertEquals(cursorA, count("SELECT last_id FROM tenant_outbox_cursor WHERE pod_id = 'pod-a'"));
    assertTrue(wokenA.isEmpty(), "A woke nothing while stalled");
    pollerA.resume();
    // The row for x is gone, y never had one: only the stale-cursor wake-all reaches them.
    assertTrue(eventually(Duration.ofSeconds(3), () -> wokenA.keySet().equals(Set.of("x", "y"))),
        "A woke all its local tenants: " + wokenA);
    assertEquals(1L, await(pollerA.wakeAlls()));
    assertEquals(0L, await(pollerB.wakeAlls()), "a poller that kept up never wakes all");
    assertTrue(eventually(Duration.ofSeconds(3),
        () -> count("SELECT updated_at FROM tenant_outbox_cursor WHERE pod_id = 'pod-a'") > cursorAWrittenAt + stall.toMillis()),
        "A's cursor is fresh again");
    Thread.sleep(300);
    assertEquals(1L, await(pollerA.wakeAlls()), "once");
    assertFalse(pollerA.paused());
  }
}
