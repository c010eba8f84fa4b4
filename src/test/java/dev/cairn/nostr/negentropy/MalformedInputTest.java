package dev.cairn.nostr.negentropy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Hostile or broken messages end in a {@link NegentropyException} with a message saying what is
 * wrong, never another exception type, a hang or a huge allocation.
 */
class MalformedInputTest {

  private static final VectorStorage ITEMS = items(200);

  private static VectorStorage items(int n) {
    VectorStorage.Builder b = VectorStorage.builder(n);
    for (int i = 0; i < n; i++) {
      b.add(1000 + i / 3, TestSets.id(i));
    }
    return b.build();
  }

  private static String serverError(String hex) {
    NegentropyServer server = Negentropy.server(ITEMS);
    return assertThrows(NegentropyException.class, () -> server.reconcileHex(hex)).getMessage();
  }

  private static void assertMentions(String message, String expected) {
    assertTrue(message.contains(expected), "'" + message + "' should mention '" + expected + "'");
  }

  @Test
  void emptyMessage() {
    assertMentions(serverError(""), "ends prematurely");
  }

  @Test
  void versionBytesOutsideTheNegentropyRangeAreErrors() {
    assertMentions(serverError("50"), "invalid negentropy protocol version byte 0x50");
    assertMentions(serverError("ff00000200"), "invalid negentropy protocol version byte");
  }

  @Test
  void otherVersionsGetOurVersionBackSoTheClientCanDowngrade() throws Exception {
    NegentropyServer server = Negentropy.server(ITEMS);
    assertEquals("61", server.reconcileHex("62aabbccddeeff"));
    assertEquals("61", server.reconcileHex("60"));
  }

  @Test
  void aClientRefusesAServerThatAnswersInAnotherVersion() {
    NegentropyClient client = Negentropy.client(ITEMS);
    client.initiate();
    NegentropyException e =
        assertThrows(
            NegentropyException.class,
            () -> client.reconcile(VectorFiles.hex("62"), new ArrayList<>(), new ArrayList<>()));
    assertMentions(e.getMessage(), "unsupported negentropy protocol version requested: 2");
  }

  @Test
  void truncatedVarints() {
    assertMentions(serverError("6180"), "premature end of varint at offset 1");
    assertMentions(serverError("6100"), "premature end of varint at offset 2"); // no id length
    assertMentions(serverError("610000"), "premature end of varint at offset 3"); // no mode
    assertMentions(serverError("61000002"), "premature end of varint at offset 4"); // no count
  }

  @Test
  void unknownMode() {
    assertMentions(serverError("6100000300"), "unexpected mode 3 at offset 3");
    assertMentions(
        serverError("61000081ffffffffffffffff7f"), "unexpected mode 18446744073709551615");
  }

  @Test
  void truncatedPayloads() {
    assertMentions(serverError("61000001" + "00".repeat(15)), "fingerprint needs 16 bytes");
    assertMentions(serverError("6100000201"), "id list of 1 ids");
    assertMentions(serverError("610001"), "bound id prefix needs 1 bytes");
  }

  @Test
  void oversizedBoundPrefix() {
    assertMentions(serverError("610021" + "00".repeat(33) + "0200"), "longer than 32 bytes (33)");
  }

  @Test
  void anEnormousIdCountFailsBeforeAllocatingAnything() {
    // count 2^63 (negative as a Java long): would be 2^68 bytes of ids
    assertMentions(serverError("6100000281808080808080808000"), "id list of 9223372036854775808");
  }

  @Test
  void aVarintBeyond64Bits() {
    assertMentions(
        serverError("61" + "ff".repeat(10) + "7f"), "varint exceeds 64 bits at offset 1");
  }

  @Test
  void badHex() {
    assertMentions(serverError("6"), "invalid hex message");
    assertMentions(serverError("61zz"), "invalid hex message");
  }

  @Test
  void badFrameSizeLimitsAndRepeatedInitiateAreProgrammingErrors() {
    assertThrows(IllegalArgumentException.class, () -> Negentropy.server(ITEMS, 4095));
    assertThrows(IllegalArgumentException.class, () -> Negentropy.client(ITEMS, -1));
    NegentropyClient client = Negentropy.client(ITEMS);
    client.initiate();
    assertThrows(IllegalStateException.class, client::initiate);
  }

  @Test
  void aClientIsDoneOnAnEmptyReply() throws Exception {
    NegentropyClient client = Negentropy.client(ITEMS);
    client.initiate();
    assertNull(client.reconcile(VectorFiles.hex("61"), new ArrayList<>(), new ArrayList<>()));
  }

  /**
   * Random garbage and random mutations of real messages, to both roles: each must be answered or
   * refused with a NegentropyException, quickly.
   */
  @Test
  void fuzzedMessagesNeverEscapeAsAnotherFailure() {
    NegentropyClient peer = Negentropy.client(items(3000));
    byte[] real = peer.initiate();
    Random rnd = new Random(77);
    assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          for (int i = 0; i < 20000; i++) {
            byte[] msg = i % 2 == 0 ? randomBytes(rnd) : mutate(real, rnd);
            NegentropyServer server = Negentropy.server(ITEMS, i % 3 == 0 ? 4096 : 0);
            NegentropyClient client = Negentropy.client(ITEMS, i % 5 == 0 ? 4096 : 0);
            tryBoth(server, client, msg);
          }
        });
  }

  private static void tryBoth(NegentropyServer server, NegentropyClient client, byte[] msg) {
    try {
      assertTrue(server.reconcile(msg).length >= 1);
    } catch (NegentropyException e) {
      assertTrue(!e.getMessage().isEmpty());
    }
    try {
      List<byte[]> have = new ArrayList<>();
      List<byte[]> need = new ArrayList<>();
      client.reconcile(msg, have, need);
      assertTrue(have.size() <= ITEMS.size());
    } catch (NegentropyException e) {
      assertTrue(!e.getMessage().isEmpty());
    }
  }

  private static byte[] randomBytes(Random rnd) {
    byte[] b = new byte[rnd.nextInt(300)];
    rnd.nextBytes(b);
    if (b.length > 0 && rnd.nextBoolean()) {
      b[0] = 0x61;
    }
    return b;
  }

  private static byte[] mutate(byte[] real, Random rnd) {
    byte[] b = real.clone();
    int edits = 1 + rnd.nextInt(4);
    for (int e = 0; e < edits; e++) {
      int at = 1 + rnd.nextInt(b.length - 1);
      b[at] = (byte) rnd.nextInt(256);
    }
    if (rnd.nextInt(4) == 0) {
      b = java.util.Arrays.copyOf(b, 1 + rnd.nextInt(b.length));
    }
    return b;
  }
}
