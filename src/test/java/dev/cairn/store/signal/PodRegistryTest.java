package dev.cairn.store.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Heartbeats, the dead-pod sweep (pods row and cursor row), cairn_pods. */
class PodRegistryTest extends SignalTestBase {

  private void pod(String id, long heartbeatAt) throws Exception {
    await(meta.preparedQuery("INSERT INTO pods VALUES (?, ?, ?)").execute(Tuple.of(id, heartbeatAt, heartbeatAt)));
  }

  private void cursor(String id, long updatedAt) throws Exception {
    await(meta.preparedQuery("INSERT INTO tenant_outbox_cursor VALUES (?, 7, ?)").execute(Tuple.of(id, updatedAt)));
  }

  @Test
  void sweepsDeadPodsWithTheirCursorsAndCountsTheLiveOnes() throws Exception {
    long now = System.currentTimeMillis();
    long longAgo = now - Duration.ofMinutes(5).toMillis();
    pod("dead", longAgo);
    cursor("dead", longAgo);
    cursor("gone", longAgo); // a cursor whose pods row was swept already
    pod("stalled", now); // heartbeat fine, poller stuck: its cursor is the pruner's business, not the sweep's
    cursor("stalled", longAgo);
    pod("other", now);
    cursor("other", now);
    SimpleMeterRegistry reg = registry();
    SignalSettings s = fast("me", Duration.ofMinutes(10), Duration.ofHours(1));
    PodRegistry registry = new PodRegistry(vertx, pod(), s, new SignalMetrics(reg));
    stops.add(registry::stop);
    await(registry.start()); // the first beat: heartbeat, sweep, count
    assertEquals(0, count("SELECT COUNT(*) FROM pods WHERE pod_id = 'dead'"));
    assertEquals(0, count("SELECT COUNT(*) FROM tenant_outbox_cursor WHERE pod_id IN ('dead', 'gone')"));
    assertEquals(2, count("SELECT COUNT(*) FROM tenant_outbox_cursor WHERE pod_id IN ('stalled', 'other')"));
    assertEquals(1, count("SELECT COUNT(*) FROM pods WHERE pod_id = 'me' AND heartbeat_at >= ?", now));
    assertEquals(3, registry.livePods(), "me, stalled, other");
    assertEquals(3.0, reg.get("cairn_pods").gauge().value());

    // "other" dies: its heartbeat ages past dead_after; the next beat sweeps it.
    await(meta.preparedQuery("UPDATE pods SET heartbeat_at = ? WHERE pod_id = 'other'").execute(Tuple.of(longAgo)));
    await(meta.preparedQuery("UPDATE tenant_outbox_cursor SET updated_at = ? WHERE pod_id = 'other'")
        .execute(Tuple.of(longAgo)));
    long before = count("SELECT heartbeat_at FROM pods WHERE pod_id = 'me'");
    Thread.sleep(5);
    await(registry.beat());
    assertTrue(count("SELECT heartbeat_at FROM pods WHERE pod_id = 'me'") > before, "heartbeat moved");
    assertEquals(0, count("SELECT COUNT(*) FROM pods WHERE pod_id = 'other'"));
    assertEquals(0, count("SELECT COUNT(*) FROM tenant_outbox_cursor WHERE pod_id = 'other'"));
    assertEquals(2.0, reg.get("cairn_pods").gauge().value());

    // A graceful stop takes this pod's rows along; another pod then counts one less.
    cursor("me", now);
    await(registry.stop());
    assertEquals(0, count("SELECT COUNT(*) FROM pods WHERE pod_id = 'me'"));
    assertEquals(0, count("SELECT COUNT(*) FROM tenant_outbox_cursor WHERE pod_id = 'me'"));
    SimpleMeterRegistry reg2 = registry();
    PodRegistry stalled = new PodRegistry(vertx, pod(), fast("stalled", Duration.ofMinutes(10), Duration.ofHours(1)),
        new SignalMetrics(reg2));
    stops.add(stalled::stop);
    await(stalled.start());
    assertEquals(1, stalled.livePods());
    assertEquals(1.0, reg2.get("cairn_pods").gauge().value());
    await(stalled.stop());
  }
}
