package dev.cairn.store.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Transaction;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Pod B's poller against rows pod A writes: cross-pod wakes, ids committing out of order, the cursor row. */
class NotifyPollerTest extends SignalTestBase {
  private final Map<String, AtomicInteger> woken = new ConcurrentHashMap<>();
  private final Consumer<Set<String>> recorder =
      ts -> ts.forEach(t -> woken.computeIfAbsent(t, k -> new AtomicInteger()).incrementAndGet());

  private int wakes(String tenant) {
    AtomicInteger n = woken.get(tenant);
    return n == null ? 0 : n.get();
  }

  @Test
  void podBWakesTheTenantPodAWrote() throws Exception {
    SignalSettings a = fast("pod-a", Duration.ofMinutes(10), Duration.ofHours(1));
    SignalSettings b = fast("pod-b", Duration.ofMinutes(10), Duration.ofHours(1));
    NotifyPoller poller = new NotifyPoller(vertx, pod(), b, new SignalMetrics(registry()), recorder, Set::of);
    started(poller);
    NotifyOutbox outbox = new NotifyOutbox(vertx, pod(), a, new SignalMetrics(registry()));
    long t0 = System.nanoTime();
    outbox.notify("t1");
    assertTrue(eventually(Duration.ofSeconds(3), () -> wakes("t1") == 1), "pod B woke t1");
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(ms < 1_000, "woken within a few poll intervals, took " + ms + " ms");
    assertEquals(Set.of("t1"), woken.keySet());
    long id = count("SELECT MAX(id) FROM tenant_notify_outbox");
    // Once settled, the cursor row of pod B carries the id (the pruner's floor reads it).
    assertTrue(eventually(Duration.ofSeconds(3),
        () -> count("SELECT COALESCE(MAX(last_id), -1) FROM tenant_outbox_cursor WHERE pod_id = 'pod-b'") == id),
        "cursor of pod B upserted to the row's id");
    assertEquals(id, await(poller.position()));
    Thread.sleep(300);
    assertEquals(1, wakes("t1"), "one row wakes once");
    await(outbox.close());
  }

  @Test
  void aLowerIdThatCommitsLateIsNotLost() throws Exception {
    SignalSettings b = new SignalSettings("pod-b", Duration.ofMillis(200), Duration.ofMillis(50), 500, 20,
        Duration.ofSeconds(5), Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(30),
        Duration.ofMinutes(10), Duration.ofHours(1), Duration.ofHours(1), 5_000, 20, Duration.ZERO);
    NotifyPoller poller = new NotifyPoller(vertx, pod(), b, new SignalMetrics(registry()), recorder, Set::of);
    started(poller);
    // Pod A1 takes id n in a transaction it has not committed yet; pod A2 takes n + 1 and commits.
    SqlConnection slow = await(pod().getConnection());
    Transaction tx = await(slow.begin());
    String insert = "INSERT INTO tenant_notify_outbox (tenant_id, work, created_at) VALUES (?, 'feed', ?)";
    await(slow.preparedQuery(insert).execute(Tuple.of("late", System.currentTimeMillis())));
    await(meta.preparedQuery(insert).execute(Tuple.of("early", System.currentTimeMillis())));
    assertTrue(eventually(Duration.ofSeconds(3), () -> wakes("early") == 1), "the committed higher id woke");
    assertEquals(2, count("SELECT MAX(id) FROM tenant_notify_outbox"), "early has the higher id");
    Thread.sleep(200); // several ticks past it: a plain "id > cursor" poller has moved beyond n for good
    assertEquals(0, wakes("late"));
    await(tx.commit());
    await(slow.close());
    assertTrue(eventually(Duration.ofSeconds(3), () -> wakes("late") == 1), "the late lower id woke too");
    Thread.sleep(300);
    assertEquals(1, wakes("early"), "re-reading the window does not wake twice");
    assertEquals(1, wakes("late"));
  }

  @Test
  void aPausedPollerWakesNothingUntilResumed() throws Exception {
    SignalSettings b = fast("pod-b", Duration.ofMinutes(10), Duration.ofHours(1));
    NotifyPoller poller = new NotifyPoller(vertx, pod(), b, new SignalMetrics(registry()), recorder, Set::of);
    started(poller);
    poller.pause();
    await(meta.query("INSERT INTO tenant_notify_outbox (tenant_id, work, created_at) VALUES ('t1', 'feed', 1)")
        .execute());
    Thread.sleep(300);
    assertFalse(woken.containsKey("t1"), "paused");
    poller.resume();
    assertTrue(eventually(Duration.ofSeconds(3), () -> wakes("t1") == 1), "resumed");
  }
}
