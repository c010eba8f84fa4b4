package dev.cairn.scaleout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Seed 003 section 6 on real processes: pod A stands still (SIGSTOP) while pod B is written; once A's
 * poller cursor is older than {@code pod.stall_bound} (A's heartbeat is not yet old enough for A to be
 * dead) the notify outbox is pruned past A's cursor, so a stalled pod does not pin it; when A goes on
 * (SIGCONT) its SSE consumer catches up with every event B stored meanwhile, although the hints A would
 * have polled are gone.
 */
class StalledPodIT {
  private static final int EVENTS = 200;

  @Test
  void theNotifyOutboxIsPrunedPastAStalledPodWhoseSseConsumersCatchUpWhenItResumes() throws Exception {
    Map<String, String> fast = Map.of(
        "CAIRN_POD_HEARTBEAT_INTERVAL", "1s", "CAIRN_POD_DEAD_AFTER", "60s", "CAIRN_POD_STALL_BOUND", "4s",
        "CAIRN_FEED_NOTIFY_RETENTION", "1s", "CAIRN_FEED_NOTIFY_PRUNE_INTERVAL", "1s");
    try (Cluster cluster = new Cluster()) {
      Pod a = cluster.start("pod-a", fast);
      Pod b = cluster.start("pod-b", fast);
      SseRecorder onA = SseRecorder.follow(a);
      AlternatingWriter writer = new AlternatingWriter(cluster.vertx, List.of(b));
      writer.write(0, 10);
      writer.drain();
      ScaleOutIT.awaitSize(onA::ids, 10);
      assertEquals(10, onA.ids().size(), "A's consumer is live before the stall");

      a.signal("STOP");
      try {
        long cursorA = cluster.metaLong("SELECT last_id FROM tenant_outbox_cursor WHERE pod_id = 'pod-a'");
        writer.write(10, EVENTS);
        writer.drain();
        long newest = cluster.metaLong("SELECT MAX(id) FROM tenant_notify_outbox");
        assertTrue(newest > cursorA, "B's writes left hints A has not read");
        // A's cursor goes stale (4 s); B's pruner then deletes the hints past it (older than 1 s).
        long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
        long unread = Long.MAX_VALUE;
        while (System.nanoTime() < deadline && unread > 0) {
          Thread.sleep(500);
          unread = cluster.metaLong("SELECT COUNT(*) FROM tenant_notify_outbox WHERE id > " + cursorA);
        }
        assertEquals(0, unread, "the hints past stalled pod A's cursor were pruned: it does not pin the table");
        assertEquals(1, cluster.metaLong("SELECT COUNT(*) FROM pods WHERE pod_id = 'pod-a'"),
            "A is stalled, not dead: its pod row stays");
      } finally {
        a.signal("CONT");
      }
      // A resumes behind the prune floor: it wakes all its sessions, which read the feed from the tenant DB.
      ScaleOutIT.awaitSize(onA::ids, EVENTS);
      assertEquals(EVENTS, onA.ids().size(), "A's SSE consumer caught up, once each");
      assertEquals(writer.accepted(), Set.copyOf(onA.ids()), "every event B stored during the stall");
      onA.close();
    }
  }
}
