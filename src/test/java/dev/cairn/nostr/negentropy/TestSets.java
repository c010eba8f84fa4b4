package dev.cairn.nostr.negentropy;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/** Item sets and a full client/server sync loop for the tests. */
final class TestSets {
  private TestSets() {}

  /** A deterministic, well-spread id: SHA-256 of {@code n}. */
  static byte[] id(long n) {
    return sha256(ByteBuffer.allocate(8).putLong(n).array());
  }

  static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static VectorStorage storage(List<Item> items) {
    VectorStorage.Builder b = VectorStorage.builder(items.size());
    items.forEach(b::add);
    return b.build();
  }

  /** Hex ids of {@code items}. */
  static Set<String> hexIds(List<Item> items) {
    Set<String> out = new HashSet<>();
    for (Item item : items) {
      out.add(NegentropyHex.encode(item.id()));
    }
    return out;
  }

  /**
   * Random universe split into client-only, server-only and shared items: {@code count} items,
   * timestamps in {@code [base, base + spread)}, fractions given per mille.
   */
  static List<List<Item>> split(
      long seed, int count, long base, int spread, int clientOnlyPerMille, int serverOnlyPerMille) {
    Random rnd = new Random(seed);
    List<Item> client = new ArrayList<>();
    List<Item> server = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] id = new byte[32];
      rnd.nextBytes(id);
      Item item = new Item(base + (spread <= 1 ? 0 : rnd.nextInt(spread)), id);
      int side = rnd.nextInt(1000);
      if (side < clientOnlyPerMille) {
        client.add(item);
      } else if (side < clientOnlyPerMille + serverOnlyPerMille) {
        server.add(item);
      } else {
        client.add(item);
        server.add(item);
      }
    }
    return List.of(client, server);
  }

  /** What a finished sync taught the client, and what it cost. */
  record Outcome(
      Set<String> have,
      Set<String> need,
      int rounds,
      long bytesUp,
      long bytesDown,
      int maxUp,
      int maxDown) {}

  /** Runs client against server until the client is done (or fails past {@code maxRounds}). */
  static Outcome sync(NegentropyClient client, NegentropyServer server, int maxRounds)
      throws NegentropyException {
    List<byte[]> have = new ArrayList<>();
    List<byte[]> need = new ArrayList<>();
    byte[] msg = client.initiate();
    int rounds = 0;
    long up = 0;
    long down = 0;
    int maxUp = 0;
    int maxDown = 0;
    while (msg != null) {
      if (++rounds > maxRounds) {
        throw new AssertionError("no convergence after " + maxRounds + " rounds");
      }
      up += msg.length;
      maxUp = Math.max(maxUp, msg.length);
      byte[] reply = server.reconcile(msg);
      down += reply.length;
      maxDown = Math.max(maxDown, reply.length);
      msg = client.reconcile(reply, have, need);
    }
    return new Outcome(hex(have), hex(need), rounds, up, down, maxUp, maxDown);
  }

  static Set<String> hex(List<byte[]> ids) {
    Set<String> out = new HashSet<>();
    ids.forEach(id -> out.add(NegentropyHex.encode(id)));
    return out;
  }
}
