package dev.cairn.crash;

import dev.cairn.feed.SseClient.Frame;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the clients saw before the kill: the promises the relay made (every {@code OK true}, every
 * live event, every feed frame and the feed consumer's cursor) that the restarted relay must keep.
 *
 * @param sent every event written to a socket, by id (OK'd or not)
 * @param accepted ids answered {@code OK true}
 * @param duplicates of those, the ones answered {@code OK true "duplicate: ..."}
 * @param refused ids answered {@code OK false}, with the message
 * @param replaceables per publisher pubkey, the ids of its replaceable versions in the order sent
 * @param live ids pushed to the REQ subscriber
 * @param feed every SSE frame, in order, from the initial reset on
 * @param cursor the feed consumer's last processed {@code id:}, what it resumes from
 */
record Witness(Map<String, JsonObject> sent, Set<String> accepted, Set<String> duplicates, Map<String, String> refused,
    Map<String, List<String>> replaceables, Set<String> live, List<Frame> feed, String cursor) {

  static Witness of(List<Publisher> publishers, LiveSubscriber live, FeedConsumer consumer, List<Frame> feed) {
    Map<String, JsonObject> sent = new HashMap<>();
    Set<String> accepted = new HashSet<>();
    Set<String> duplicates = new HashSet<>();
    Map<String, String> refused = new HashMap<>();
    Map<String, List<String>> replaceables = new HashMap<>();
    for (Publisher p : publishers) {
      Map<String, JsonObject> mine = p.sent();
      sent.putAll(mine);
      accepted.addAll(p.accepted());
      duplicates.addAll(p.duplicates());
      refused.putAll(p.refused());
      replaceables.put(p.pubkey(), mine.values().stream()
          .filter(e -> e.getInteger("kind") == Publisher.REPLACEABLE_KIND)
          .sorted((a, b) -> Long.compare(a.getLong("created_at"), b.getLong("created_at")))
          .map(e -> e.getString("id")).toList());
    }
    return new Witness(Map.copyOf(sent), Set.copyOf(accepted), Set.copyOf(duplicates), Map.copyOf(refused), Map.copyOf(replaceables),
        live.seen(), feed, consumer.cursor());
  }

  /** The feed's seq when the consumer went live (its initial_sync reset): the frames after it are the load's. */
  long liveFrom() {
    return feed.stream().filter(f -> f.event().equals("reset")).findFirst()
        .orElseThrow(() -> new AssertionError("the feed consumer got no initial_sync reset"))
        .data().getLong("high_seq");
  }
}
