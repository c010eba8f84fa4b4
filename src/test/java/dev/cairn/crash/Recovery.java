package dev.cairn.crash;

import dev.cairn.feed.SseClient.Frame;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the restarted relay shows once its outbox drained.
 *
 * @param found the OK'd and sent ids a REQ by ids returns
 * @param replaceableHeads per publisher pubkey, the replaceable version a REQ by author and kind returns
 * @param replay the feed from cursor 0 up to its first heartbeat
 * @param resumed the feed from the consumer's persisted cursor up to its first heartbeat
 * @param outbox the outbox and ledger after the drain
 * @param searchDocs rows in the NIP-50 index
 * @param effects ids the upstream applied; {@code deliveries} per id per relay lifetime (1 killed, 2 restarted)
 */
record Recovery(Set<String> found, Map<String, JsonObject> replaceableHeads, List<Frame> replay, List<Frame> resumed,
    StoreProbe.Outbox outbox, long searchDocs, Set<String> effects, Map<String, int[]> deliveries) {}
