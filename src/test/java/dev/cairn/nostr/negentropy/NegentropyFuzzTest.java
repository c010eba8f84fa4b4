package dev.cairn.nostr.negentropy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * NEG-OPEN/NEG-MSG payloads into the relay's negentropy server (docs/fuzzing.md). Input: byte 0 the
 * number of items the server holds, byte 1 the frame size limit (0: none, else 4096 + 64 per step),
 * byte 2 the spread of their timestamps (small spreads make equal timestamps and id-prefix bounds),
 * the rest the client's message (an input starting with {@code !} is text for the hex entry point
 * instead). Invariants: a reply or NegentropyException, nothing else; the reply
 * starts with the version byte and fits the frame size limit; a client over the same items can read
 * it; the hex entry point answers the same.
 */
class NegentropyFuzzTest {
  @FuzzTest(maxDuration = "10s")
  void message(byte[] input) throws NegentropyException {
    if (input.length < 3 || input[0] == '!') {
      hexOnly(input.length == 0 ? input : Arrays.copyOfRange(input, 1, input.length));
      return;
    }
    int items = input[0] & 0xff;
    long limit = (input[1] & 0xff) == 0 ? 0 : 4096 + 64L * ((input[1] & 0xff) - 1);
    int spread = 1 + (input[2] & 0xff);
    byte[] query = Arrays.copyOfRange(input, 3, input.length);
    VectorStorage storage = storage(items, spread);

    byte[] reply;
    try {
      reply = Negentropy.server(storage, limit).reconcile(query);
    } catch (NegentropyException e) {
      assertTrue(e.getMessage() != null && !e.getMessage().isEmpty());
      return;
    }
    assertTrue(reply.length >= 1 && reply[0] == Negentropy.PROTOCOL_VERSION, "starts with the version byte");
    if (limit != 0) {
      assertTrue(reply.length <= limit, "reply of " + reply.length + " bytes over the limit " + limit);
    }
    // a client over the same items reads the reply (it may ask again, never fails)
    new Reconciler(storage, 0, true).reconcile(reply, new ArrayList<>(), new ArrayList<>());
    assertEquals(NegentropyHex.encode(reply), Negentropy.server(storage, limit).reconcileHex(NegentropyHex.encode(query)));
    assertArrayEquals(reply, Negentropy.server(storage, limit).reconcile(query), "no state between messages");
  }

  /** Arbitrary text into the hex entry point: a reply or NegentropyException, and only ASCII hex is read as hex. */
  private static void hexOnly(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    try {
      Negentropy.server(storage(3, 2)).reconcileHex(text);
    } catch (NegentropyException e) {
      return; // refused: fine
    }
    assertTrue(text.matches("[0-9a-fA-F]*"), "accepted as hex: " + text);
  }

  /** {@code n} items with distinct random ids, timestamps in {@code [1700000000, +spread)}, the same for the same arguments. */
  static VectorStorage storage(int n, int spread) {
    SplittableRandom rnd = new SplittableRandom(n * 1000L + spread);
    VectorStorage.Builder b = VectorStorage.builder(n);
    for (int i = 0; i < n; i++) {
      byte[] id = new byte[Negentropy.ID_SIZE];
      rnd.nextBytes(id);
      id[0] = (byte) i; // distinct even if the generator repeated itself
      b.add(1_700_000_000L + rnd.nextInt(spread), id);
    }
    return b.build();
  }
}
