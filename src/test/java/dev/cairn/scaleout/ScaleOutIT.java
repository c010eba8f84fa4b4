package dev.cairn.scaleout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Issue 10's acceptance on real processes: two pods of the packaged jar on one MariaDB database set and
 * the local NATS. Events written alternately on pod A and pod B reach the REQ subscribers of both pods
 * exactly once and in seq order; a REQ opened mid-storm gets history + live with no duplicate and no gap;
 * a pod killed with kill -9 loses no OK'd event and the other pod's subscribers keep going.
 */
class ScaleOutIT {
  private static final int EVENTS = 2_000;
  private static final Duration DELIVERED_WITHIN = Duration.ofSeconds(60);

  @Test
  void writesOnEitherPodReachEverySubscriberOnBothPodsOnceAndInSeqOrder() throws Exception {
    try (Cluster cluster = new Cluster()) {
      Pod a = cluster.start("pod-a", Map.of());
      Pod b = cluster.start("pod-b", Map.of());
      AlternatingWriter writer = new AlternatingWriter(cluster.vertx, List.of(a, b));
      JsonObject filter = notesOf(writer);
      List<ReqRecorder> live = List.of(
          ReqRecorder.open(cluster.vertx, a, filter), ReqRecorder.open(cluster.vertx, a, filter),
          ReqRecorder.open(cluster.vertx, b, filter), ReqRecorder.open(cluster.vertx, b, filter));
      List<SseRecorder> feeds = List.of(SseRecorder.follow(a), SseRecorder.follow(b));

      writer.write(0, EVENTS / 2);
      ReqRecorder midStorm = ReqRecorder.open(cluster.vertx, b, filter.copy().put("limit", EVENTS));
      writer.write(EVENTS / 2, EVENTS);
      writer.drain();

      Set<String> accepted = writer.accepted();
      assertEquals(EVENTS, accepted.size(), "every event OK'd; refused: " + writer.refused());
      Map<String, Long> seqs = cluster.seqs("default");
      assertTrue(seqs.keySet().containsAll(accepted), "every OK'd event is stored");
      for (ReqRecorder r : live) {
        awaitSize(r::ids, EVENTS);
        List<String> ids = r.ids();
        assertEquals(EVENTS, ids.size(), "no event twice");
        assertEquals(accepted, Set.copyOf(ids), "every event once");
        assertInSeqOrder(ids, seqs);
      }
      awaitSize(midStorm::ids, EVENTS);
      List<String> ids = midStorm.ids();
      assertEquals(EVENTS, new HashSet<>(ids).size(), "mid-storm REQ: no duplicate");
      assertEquals(accepted, Set.copyOf(ids), "mid-storm REQ: history + live cover every event, no gap");
      assertInSeqOrder(ids.subList(midStorm.storedCount(), ids.size()), seqs);
      assertTrue(b.metrics().contains("cairn_live_remote_total"), "pod B counts events it got from pod A");
      // SSE on both pods: every event once, in feed seq order (woken through the signal plane).
      for (SseRecorder f : feeds) {
        awaitSize(f::ids, EVENTS);
        assertEquals(EVENTS, f.ids().size(), "SSE: no frame twice");
        assertEquals(accepted, Set.copyOf(f.ids()), "SSE: every event once");
        List<Long> feedSeqs = f.seqs();
        for (int i = 1; i < feedSeqs.size(); i++) {
          assertTrue(feedSeqs.get(i) > feedSeqs.get(i - 1), "SSE frames in seq order at " + i + ": " + feedSeqs);
        }
        f.close();
      }
    }
  }

  @Test
  void killingPodAMidStormLosesNoOkdEventAndPodBsSubscribersKeepGoing() throws Exception {
    try (Cluster cluster = new Cluster()) {
      Pod a = cluster.start("pod-a", Map.of());
      Pod b = cluster.start("pod-b", Map.of());
      AlternatingWriter writer = new AlternatingWriter(cluster.vertx, List.of(a, b));
      JsonObject filter = notesOf(writer);
      ReqRecorder onB = ReqRecorder.open(cluster.vertx, b, filter);

      writer.write(0, EVENTS / 2);
      a.kill9();
      writer.write(EVENTS / 2, EVENTS); // A's socket is gone: the rest goes to B
      writer.drain();

      Set<String> accepted = writer.accepted();
      Map<String, Long> seqs = cluster.seqs("default");
      List<String> lost = accepted.stream().filter(id -> !seqs.containsKey(id)).toList();
      assertEquals(List.of(), lost, "OK'd events missing from the store after kill -9 of pod A");
      assertTrue(accepted.size() >= EVENTS / 2, "pod B kept accepting: " + accepted.size());
      // Every stored event reaches B's subscriber, including A's last ones whose live message A never
      // sent: the next seq from B shows the gap and B reads it from the store.
      awaitSize(onB::ids, seqs.size());
      List<String> ids = onB.ids();
      assertEquals(seqs.size(), new HashSet<>(ids).size(), "no duplicate");
      assertEquals(seqs.keySet(), Set.copyOf(ids), "pod B's subscriber got every stored event");
      assertInSeqOrder(ids, seqs);
    }
  }

  /** The writer's notes: what every subscriber here asks for. */
  private static JsonObject notesOf(AlternatingWriter writer) {
    return new JsonObject().put("kinds", new JsonArray().add(1)).put("authors", new JsonArray().add(writer.pubkey()));
  }

  static void assertInSeqOrder(List<String> ids, Map<String, Long> seqs) {
    long last = 0;
    List<String> outOfOrder = new ArrayList<>();
    for (String id : ids) {
      long seq = seqs.getOrDefault(id, -1L);
      if (seq <= last) {
        outOfOrder.add(id + " seq " + seq + " after " + last);
      }
      last = Math.max(last, seq);
    }
    assertEquals(List.of(), outOfOrder, "live events arrive in seq order");
  }

  static void awaitSize(Supplier<List<String>> ids, int n) throws InterruptedException {
    long deadline = System.nanoTime() + DELIVERED_WITHIN.toNanos();
    while (ids.get().size() < n && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
  }
}
