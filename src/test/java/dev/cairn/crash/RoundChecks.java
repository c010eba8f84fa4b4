package dev.cairn.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.feed.SseClient.Frame;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The guarantees a kill -9 must not break, checked on one round's {@link Witness} and {@link Recovery}.
 * Every message names the round, its seed and the first offending ids. What CONTRACT.md allows is
 * allowed: seq holes (section 4: "seq is a persistence order with possible holes"), events stored
 * without their OK having arrived, and a forward re-run across the crash (docs/outbox.md, known gaps);
 * what it promises is asserted.
 */
final class RoundChecks {
  private final String where;
  private final Witness w;
  private final AtKill k;
  private final Recovery r;

  RoundChecks(CrashRound round, Witness w, AtKill k, Recovery r) {
    this.where = "round " + round.number + " (seed " + round.seed + ", " + round.backend + " backend, kill " + round.killDelayMs + " ms into the load, pid "
        + round.killedPid + "): ";
    this.w = w;
    this.k = k;
    this.r = r;
  }

  RoundResult verify(CrashRound round, long elapsedMs) {
    assertTrue(w.refused().isEmpty(), where + "events refused under a plain load: " + first(w.refused().entrySet()));

    TreeMap<Long, Frame> replay = dataFrames(r.replay(), "the replay from cursor 0");
    Map<String, Long> storedFrames = storedFrameIds(replay.values());
    Set<String> replacedIds = new HashSet<>();
    for (Frame f : replay.values()) {
      if (f.event().equals("deleted") && "replaced".equals(f.data().getString("reason"))) {
        replacedIds.add(f.data().getString("id"));
      }
    }
    Set<String> olderVersions = checkStore(replacedIds);
    checkFeedAgainstOutbox(replay, storedFrames.keySet(), olderVersions);
    checkOutbox(storedFrames.keySet());
    long reforwarded = checkEffects(storedFrames.keySet());
    long resumed = checkResume(replay);

    Set<String> live = w.live();
    assertTrue(storedFrames.keySet().containsAll(live),
        where + "events pushed live before the kill are not stored after it: " + first(minus(live, storedFrames.keySet())));

    Set<String> unanswered = minus(storedFrames.keySet(), w.accepted());
    return new RoundResult(round.number, round.seed, round.killDelayMs, w.sent().size(), w.accepted().size(),
        unanswered.size(), r.outbox().storedRows(), replay.size(), r.outbox().storedRows() + r.outbox().deletedRows(),
        k.outbox().notDone(), dataFrames(w.feed(), "the live feed").size(), resumed, live.size(), reforwarded,
        k.openForwardClaims().size(), olderVersions.size(), elapsedMs);
  }

  /**
   * Every OK'd event is stored: by id, or, for a replaceable version, superseded by a newer stored one
   * (a {@code deleted(replaced)} frame), or answered {@code duplicate:} because a newer version was
   * stored first. That last one happens without a crash: a connection's events are verified by several
   * signature workers at once, so a version can reach the store after the next one (CONTRACT section 3
   * keeps the newest; it promises no per-connection order). Returns those older versions.
   */
  private Set<String> checkStore(Set<String> replaced) {
    List<String> lost = new ArrayList<>();
    Set<String> olderVersions = new HashSet<>();
    for (String id : w.accepted()) {
      JsonObject sent = w.sent().get(id);
      boolean replaceable = sent.getInteger("kind") == Publisher.REPLACEABLE_KIND;
      if (r.found().contains(id) || (replaceable && replaced.contains(id))) {
        continue;
      }
      if (replaceable && w.duplicates().contains(id)) {
        List<String> versions = w.replaceables().get(sent.getString("pubkey"));
        JsonObject head = r.replaceableHeads().get(sent.getString("pubkey"));
        assertTrue(head != null && versions.indexOf(head.getString("id")) > versions.indexOf(id),
            where + id + " was answered duplicate: but no newer version of it is stored");
        olderVersions.add(id);
      } else {
        lost.add(id);
      }
    }
    assertTrue(lost.isEmpty(), where + lost.size() + " OK'd events not stored after the restart: " + first(lost));
    Set<String> strayDuplicates = minus(w.duplicates(), olderVersions);
    strayDuplicates.removeIf(id -> w.sent().get(id).getInteger("kind") == Publisher.REPLACEABLE_KIND);
    assertTrue(strayDuplicates.isEmpty(), where + "events sent once answered duplicate: " + first(strayDuplicates));
    for (Map.Entry<String, List<String>> e : w.replaceables().entrySet()) {
      List<String> versions = e.getValue();
      int newestAccepted = -1;
      for (int i = 0; i < versions.size(); i++) {
        if (w.accepted().contains(versions.get(i))) {
          newestAccepted = i;
        }
      }
      JsonObject head = r.replaceableHeads().get(e.getKey());
      if (newestAccepted < 0) {
        continue;
      }
      assertTrue(head != null, where + "no stored version of " + e.getKey() + "'s replaceable event, "
          + versions.get(newestAccepted) + " was OK'd");
      int headIndex = versions.indexOf(head.getString("id"));
      assertTrue(headIndex >= newestAccepted, where + "the stored version of " + e.getKey() + "'s replaceable event is "
          + head.getString("id") + " (#" + headIndex + "), older than the OK'd " + versions.get(newestAccepted));
      assertTrue(!replaced.contains(head.getString("id")), where + "the stored head " + head.getString("id")
          + " also has a deleted(replaced) frame");
    }
    assertEquals(r.outbox().events() + r.outbox().removed(), r.outbox().storedRows(),
        where + "events ever stored (events + removed_events) vs EventStored rows");
    assertEquals(0, r.outbox().withoutOneStoredRow(), where + "stored events without exactly one EventStored outbox row");
    assertEquals(0, r.outbox().orphanStoredRows(), where + "EventStored rows naming no event");
    return olderVersions;
  }

  /** The feed from cursor 0: every OK'd event once, one frame per outbox row, nothing foreign. */
  private void checkFeedAgainstOutbox(Map<Long, Frame> replay, Set<String> stored, Set<String> olderVersions) {
    Set<String> missing = minus(minus(w.accepted(), olderVersions), stored);
    assertTrue(missing.isEmpty(), where + missing.size() + " OK'd events have no stored frame on the feed: " + first(missing));
    Set<String> foreign = minus(stored, w.sent().keySet());
    assertTrue(foreign.isEmpty(), where + "stored frames for events nobody sent: " + first(foreign));
    long deleted = replay.values().stream().filter(f -> f.event().equals("deleted")).count();
    assertEquals(r.outbox().storedRows(), stored.size(), where + "stored feed frames vs EventStored outbox rows");
    assertEquals(r.outbox().deletedRows(), deleted, where + "deleted feed frames vs EventDeleted outbox rows");
  }

  /** No outbox row lost or stuck: all delivered, none dead-lettered, one forward ledger row each, search complete. */
  private void checkOutbox(Set<String> stored) {
    StoreProbe.Outbox o = r.outbox();
    assertEquals(0, o.notDone(), where + "outbox rows not done after the drain");
    assertEquals(0, o.deadLettered(), where + "dead-lettered outbox rows");
    assertEquals(o.storedRows() + o.deletedRows(), o.forwardDone(), where + "forward ledger rows done vs outbox rows");
    assertEquals(0, o.forwardInProgress(), where + "forward ledger claims left open");
    assertEquals(o.events(), r.searchDocs(), where + "NIP-50 index rows vs stored events (each indexed once)");
    assertTrue(stored.size() > 0, where + "nothing stored: the round tested nothing");
  }

  /**
   * The forward handler's effect: every stored event reached the upstream, and no process ran it twice
   * for one event. A second run is allowed only across the crash (the documented window between the
   * effect and its ledger mark); its count is returned.
   */
  private long checkEffects(Set<String> stored) {
    Set<String> neverForwarded = minus(stored, r.effects());
    assertTrue(neverForwarded.isEmpty(), where + neverForwarded.size() + " stored events never forwarded: " + first(neverForwarded));
    Set<String> unexpected = minus(r.effects(), stored);
    assertTrue(unexpected.isEmpty(), where + "forwarded events that were never stored: " + first(unexpected));
    List<String> twiceInOneLife = new ArrayList<>();
    List<String> againThoughDone = new ArrayList<>();
    long across = 0;
    for (Map.Entry<String, int[]> e : r.deliveries().entrySet()) {
      int[] n = e.getValue();
      if (n[0] > 1 || n[1] > 1) {
        twiceInOneLife.add(e.getKey() + " (" + n[0] + "+" + n[1] + ")");
      }
      if (n[0] == 1 && n[1] == 1) {
        across++;
        if (!k.openForwardClaims().contains(e.getKey())) {
          againThoughDone.add(e.getKey());
        }
      }
    }
    assertTrue(twiceInOneLife.isEmpty(), where + "forward ran twice in one process lifetime for " + first(twiceInOneLife));
    // the ledger's promise: a run marked done is never repeated, so a re-run needs a claim left open by the kill
    assertTrue(againThoughDone.isEmpty(), where + "forwarded again after the restart although the ledger had no"
        + " open claim for them at the kill: " + first(againThoughDone));
    return across;
  }

  /**
   * The SSE consumer that was live at the kill resumes from its persisted cursor: same epoch, no reset,
   * and the frames it saw before plus the frames it gets now are exactly the feed after its start,
   * with no seq twice (no duplicate) and none missing (no gap). Seq holes the feed itself has are not
   * gaps: the comparison is with the replay, not with seq + 1. Returns the resumed frame count.
   */
  private long checkResume(TreeMap<Long, Frame> replay) {
    String epoch = epochOf(r.replay());
    assertEquals(epoch, epochOf(w.feed()), where + "the feed's epoch changed across the restart");
    List<Frame> resets = r.resumed().stream().filter(f -> f.event().equals("reset")).toList();
    assertTrue(resets.isEmpty(), where + "resuming from " + w.cursor() + " got " + resets);
    long cursorSeq = Long.parseLong(w.cursor().substring(w.cursor().indexOf(':') + 1));
    TreeMap<Long, Frame> before = dataFrames(w.feed(), "the live feed before the kill");
    TreeMap<Long, Frame> after = dataFrames(r.resumed(), "the resumed feed");
    assertTrue(after.isEmpty() || after.firstKey() > cursorSeq,
        where + "resumed at or below the cursor " + w.cursor() + ": " + after.keySet());
    Set<Long> duplicates = new HashSet<>(before.keySet());
    duplicates.retainAll(after.keySet());
    assertTrue(duplicates.isEmpty(), where + "seqs seen both before the kill and after resuming: " + first(duplicates));
    long liveFrom = w.liveFrom();
    Map<Long, Frame> expected = new TreeMap<>(replay.tailMap(liveFrom, false));
    Map<Long, Frame> seen = new TreeMap<>(before);
    seen.putAll(after);
    Set<Long> gaps = minus(expected.keySet(), seen.keySet());
    assertTrue(gaps.isEmpty(), where + "seqs the resumed consumer never got (gap): " + first(gaps));
    Set<Long> phantoms = minus(seen.keySet(), expected.keySet());
    assertTrue(phantoms.isEmpty(), where + "seqs the consumer got that the replay does not have: " + first(phantoms));
    for (Map.Entry<Long, Frame> e : seen.entrySet()) {
      Frame want = expected.get(e.getKey());
      assertEquals(describe(want), describe(e.getValue()), where + "frame " + e.getKey() + " differs from the replay");
    }
    return after.size();
  }

  /** stored/deleted frames by seq (strictly increasing: a seq twice or out of order fails here). */
  private TreeMap<Long, Frame> dataFrames(List<Frame> frames, String what) {
    TreeMap<Long, Frame> out = new TreeMap<>();
    long last = Long.MIN_VALUE;
    for (Frame f : frames) {
      if (!f.event().equals("stored") && !f.event().equals("deleted")) {
        continue;
      }
      assertTrue(f.seq() > last, where + what + ": seq " + f.seq() + " after " + last);
      last = f.seq();
      out.put(f.seq(), f);
    }
    return out;
  }

  /** Stored event id -> its frame's seq; an event stored twice on the feed fails here. */
  private Map<String, Long> storedFrameIds(Collection<Frame> frames) {
    Map<String, Long> out = new HashMap<>();
    for (Frame f : frames) {
      if (f.event().equals("stored")) {
        String id = f.data().getJsonObject("event").getString("id");
        Long previous = out.put(id, f.seq());
        assertTrue(previous == null, where + id + " has two stored frames: seq " + previous + " and " + f.seq());
      }
    }
    return out;
  }

  private static String describe(Frame f) {
    return f.id() + " " + f.event() + " "
        + (f.event().equals("stored") ? f.data().getJsonObject("event").getString("id")
            : f.data().getString("id") + " " + f.data().getString("reason"));
  }

  private String epochOf(List<Frame> frames) {
    return frames.stream().filter(f -> f.event().equals("heartbeat")).findFirst()
        .orElseThrow(() -> new AssertionError(where + "no heartbeat")).epoch();
  }

  private static <T> Set<T> minus(Collection<T> a, Collection<T> b) {
    Set<T> out = new HashSet<>(a);
    out.removeAll(b);
    return out;
  }

  private static String first(Collection<?> items) {
    return items.stream().limit(10).map(String::valueOf).toList() + (items.size() > 10 ? " ..." : "");
  }
}
