package dev.cairn.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.feed.SseClient.Frame;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The harness's checks fail when a guarantee breaks: a hand-made round that keeps every promise
 * passes, and each single breach (a lost event, a gap or a duplicate on the resumed feed, a doubled
 * effect, a stuck outbox row, a phantom live event) fails it. Without this, a check that can never
 * fire would look like a clean crash run.
 */
class RoundChecksTest {
  private static final String E = "abcdefgh";
  private static final String P = "p".repeat(64);

  /** A round that kept every promise: notes a and b, replaceable r1 then r2; killed after seq 2. */
  private static final class Round {
    final Map<String, JsonObject> sent = new HashMap<>(Map.of(
        "a", note("a", 1), "b", note("b", 1), "r1", note("r1", Publisher.REPLACEABLE_KIND),
        "r2", note("r2", Publisher.REPLACEABLE_KIND)));
    Set<String> accepted = new HashSet<>(Set.of("a", "b", "r1", "r2"));
    Set<String> duplicates = new HashSet<>();
    Map<String, String> refused = new HashMap<>();
    Set<String> live = new HashSet<>(Set.of("a", "r1"));
    List<Frame> before = new ArrayList<>(List.of(reset(0), heartbeat(0), stored(1, "a"), stored(2, "r1")));
    List<Frame> replay = new ArrayList<>(List.of(stored(1, "a"), stored(2, "r1"), stored(3, "b"), stored(4, "r2"),
        replaced(5, "r1"), heartbeat(5)));
    List<Frame> resumed = new ArrayList<>(List.of(stored(3, "b"), stored(4, "r2"), replaced(5, "r1"), heartbeat(5)));
    Set<String> found = new HashSet<>(Set.of("a", "b", "r2"));
    StoreProbe.Outbox outbox = new StoreProbe.Outbox(3, 1, 4, 1, 0, 0, 0, 0, 5, 0);
    Set<String> effects = new HashSet<>(Set.of("a", "b", "r1", "r2"));
    Set<String> openAtKill = new HashSet<>(Set.of("a"));
    Map<String, int[]> deliveries = new HashMap<>(Map.of("a", new int[] {1, 0}, "b", new int[] {0, 1},
        "r1", new int[] {1, 0}, "r2", new int[] {0, 1}));

    RoundResult verify() {
      Witness w = new Witness(sent, accepted, duplicates, refused, Map.of(P, List.of("r1", "r2")), live, before, before.get(before.size() - 1).id());
      Recovery r = new Recovery(found, Map.of(P, note("r2", Publisher.REPLACEABLE_KIND)), replay, resumed, outbox, 3,
          effects, deliveries);
      CrashRound round = new CrashRound(1, 42, Path.of("unused"), "db");
      AtKill k = new AtKill(new StoreProbe.Outbox(2, 0, 2, 0, 2, 0, 0, 0, 0, 1), openAtKill);
      return new RoundChecks(round, w, k, r).verify(round, 0);
    }
  }

  private static JsonObject note(String id, int kind) {
    return new JsonObject().put("id", id).put("pubkey", P).put("kind", kind).put("created_at", 1);
  }

  private static Frame stored(long seq, String id) {
    return new Frame(E + ":" + seq, "stored", new JsonObject().put("seq", seq).put("event", new JsonObject().put("id", id)));
  }

  private static Frame replaced(long seq, String id) {
    return new Frame(E + ":" + seq, "deleted", new JsonObject().put("seq", seq).put("id", id).put("reason", "replaced"));
  }

  private static Frame heartbeat(long seq) {
    return new Frame(E + ":" + seq, "heartbeat", new JsonObject().put("epoch", E).put("seq", seq));
  }

  private static Frame reset(long high) {
    return new Frame(E + ":" + high, "reset", new JsonObject().put("reason", "initial_sync").put("high_seq", high));
  }

  private static void fails(String what, Consumer<Round> breach) {
    Round r = new Round();
    breach.accept(r);
    AssertionError e = assertThrows(AssertionError.class, r::verify, what);
    assertTrue(e.getMessage().contains("round 1 (seed 42"), e.getMessage());
  }

  @Test
  void aRoundThatKeptEveryPromisePasses() {
    RoundResult res = new Round().verify();
    assertEquals(4, res.stored());
    assertEquals(5, res.feedFrames());
    assertEquals(3, res.resumed());
    assertEquals(0, res.reforwarded());
  }

  @Test
  void aForwardRepeatedAcrossTheCrashIsCountedNotFailed() {
    Round r = new Round();
    r.deliveries.put("a", new int[] {1, 1});
    assertEquals(1, r.verify().reforwarded());
  }

  @Test
  void anOlderVersionAnsweredDuplicateAfterTheNewerOneIsNotLost() {
    Round r = new Round();
    // r1 reached the store after r2: answered duplicate:, never stored, so no frame and no outbox row
    r.duplicates.add("r1");
    r.live = new HashSet<>(Set.of("a"));
    r.before = new ArrayList<>(List.of(reset(0), heartbeat(0), stored(1, "a")));
    r.replay = new ArrayList<>(List.of(stored(1, "a"), stored(2, "r2"), stored(3, "b"), heartbeat(3)));
    r.resumed = new ArrayList<>(List.of(stored(2, "r2"), stored(3, "b"), heartbeat(3)));
    r.outbox = new StoreProbe.Outbox(3, 0, 3, 0, 0, 0, 0, 0, 3, 0);
    r.effects = new HashSet<>(Set.of("a", "b", "r2"));
    r.deliveries.remove("r1");
    assertEquals(1, r.verify().olderVersions());
  }

  @Test
  void eachBreachFails() {
    fails("an OK'd event not stored", r -> r.found.remove("b"));
    fails("an OK'd event missing from the feed", r -> {
      r.replay.remove(2);
      r.resumed.remove(0);
    });
    fails("an OK'd replaceable version neither stored nor replaced", r -> {
      r.replay.remove(4);
      r.resumed.remove(2);
    });
    fails("a gap on the resumed feed", r -> r.resumed.remove(1));
    fails("a duplicate on the resumed feed", r -> r.resumed.add(0, stored(2, "r1")));
    fails("the resumed feed reset", r -> r.resumed.add(0, reset(5)));
    fails("a frame before the kill that the replay does not have", r -> r.before.add(stored(6, "b")));
    fails("an event stored twice on the feed", r -> r.replay.add(5, stored(6, "a")));
    fails("an outbox row not done", r -> r.outbox = new StoreProbe.Outbox(3, 1, 4, 1, 1, 0, 0, 0, 5, 0));
    fails("a dead-lettered row", r -> r.outbox = new StoreProbe.Outbox(3, 1, 4, 1, 0, 1, 0, 0, 5, 0));
    fails("a stored event without its EventStored row", r -> r.outbox = new StoreProbe.Outbox(3, 1, 3, 1, 0, 0, 1, 0, 4, 0));
    fails("a forward ledger row missing", r -> r.outbox = new StoreProbe.Outbox(3, 1, 4, 1, 0, 0, 0, 0, 4, 0));
    fails("a stored event never forwarded", r -> r.effects.remove("r1"));
    fails("a forward run twice in one lifetime", r -> r.deliveries.put("b", new int[] {0, 2}));
    fails("a forward run again although its ledger row was done at the kill", r -> r.deliveries.put("r1", new int[] {1, 1}));
    fails("a live event that was not stored", r -> r.live.add("ghost"));
    fails("an OK false under plain load", r -> r.refused.put("x", "error: something"));
    fails("a note answered duplicate:", r -> r.duplicates.add("a"));
    fails("an older version answered duplicate: while no newer one is stored", r -> {
      r.duplicates.add("r2");
      r.found.remove("r2");
    });
  }
}
