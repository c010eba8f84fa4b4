package dev.cairn.relay;

import dev.cairn.nostr.negentropy.Negentropy;
import dev.cairn.nostr.negentropy.NegentropyClient;
import dev.cairn.nostr.negentropy.NegentropyHex;
import dev.cairn.nostr.negentropy.VectorStorage;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A NIP-77 client over a {@link RelayClient}: NEG-OPEN with the local set, NEG-MSG rounds until the
 * client has nothing left to ask, then NEG-CLOSE. Collects the ids each side lacks (deduplicated: with a
 * frame size limit a range may be reported in more than one round).
 */
final class NegentropySync {
  private NegentropySync() {}

  /** What one sync learned; {@code error} is the NEG-ERR frame when the relay refused. */
  record Result(Set<String> have, Set<String> need, int rounds, JsonArray error, long firstReplyNanos) {}

  static Result run(RelayClient c, String subId, JsonObject filter, VectorStorage local, long frameSizeLimit)
      throws Exception {
    return run(c, subId, filter, local, frameSizeLimit, RelayClient.WAIT);
  }

  static Result run(RelayClient c, String subId, JsonObject filter, VectorStorage local, long frameSizeLimit,
      Duration wait) throws Exception {
    NegentropyClient client = Negentropy.client(local, frameSizeLimit);
    long opened = System.nanoTime();
    long firstReply = 0;
    c.send(new JsonArray().add("NEG-OPEN").add(subId).add(filter).add(NegentropyHex.encode(client.initiate())));
    Set<String> have = new HashSet<>();
    Set<String> need = new HashSet<>();
    int rounds = 0;
    while (true) {
      JsonArray f = c.await(x -> subId.equals(x.getValue(1))
          && (x.getString(0).equals("NEG-MSG") || x.getString(0).equals("NEG-ERR")), wait);
      if (f.getString(0).equals("NEG-ERR")) {
        return new Result(have, need, rounds, f, firstReply);
      }
      if (rounds++ == 0) {
        firstReply = System.nanoTime() - opened;
      }
      List<byte[]> haveIds = new ArrayList<>();
      List<byte[]> needIds = new ArrayList<>();
      byte[] next = client.reconcile(NegentropyHex.decode(f.getString(2)), haveIds, needIds);
      haveIds.forEach(id -> have.add(NegentropyHex.encode(id)));
      needIds.forEach(id -> need.add(NegentropyHex.encode(id)));
      if (next == null) {
        c.send(new JsonArray().add("NEG-CLOSE").add(subId));
        return new Result(have, need, rounds, null, firstReply);
      }
      c.send(new JsonArray().add("NEG-MSG").add(subId).add(NegentropyHex.encode(next)));
    }
  }

  /** The local set of a sync: (created_at, id) of each event. */
  static VectorStorage items(List<JsonObject> events) {
    VectorStorage.Builder b = VectorStorage.builder(events.size());
    for (JsonObject e : events) {
      b.add(e.getLong("created_at"), e.getString("id"));
    }
    return b.build();
  }

  static Set<String> ids(List<JsonObject> events) {
    Set<String> out = new HashSet<>();
    events.forEach(e -> out.add(e.getString("id")));
    return out;
  }
}
