package dev.cairn.nostr.negentropy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Replays full syncs recorded from the reference C++ (and, where it can represent the timestamps,
 * the reference JS, which agreed byte for byte): our client must send exactly the reference
 * client's messages and our server exactly the reference server's replies, and the client must
 * report the same have/need ids each round. Each step is fed the reference's message, so a client
 * fault and a server fault show up separately.
 */
class ReferenceTranscriptTest {

  /** One scenario header plus its recorded lines. */
  private record Scenario(String[] header, List<String[]> steps) {
    String name() {
      return header[1];
    }
  }

  @TestFactory
  Stream<DynamicTest> replaysEveryReferenceTranscript() {
    List<Scenario> scenarios = new ArrayList<>();
    Scenario current = null;
    for (String[] line : VectorFiles.lines("sync-transcripts.txt")) {
      if (line[0].equals("scenario")) {
        current = new Scenario(line, new ArrayList<>());
        scenarios.add(current);
      } else if (!line[0].equals("end")) {
        current.steps().add(line);
      }
    }
    assertEquals(17, scenarios.size());
    return scenarios.stream().map(s -> DynamicTest.dynamicTest(s.name(), () -> replay(s)));
  }

  private static void replay(Scenario s) throws Exception {
    String[] h = s.header();
    String name = h[1];
    int count = Integer.parseInt(h[2]);
    long base = Long.parseUnsignedLong(h[3]);
    long spread = Long.parseLong(h[4]);
    long clientOnlyPpm = Long.parseLong(h[5]);
    long serverOnlyPpm = Long.parseLong(h[6]);
    long clientLimit = Long.parseLong(h[7]);
    long serverLimit = Long.parseLong(h[8]);

    VectorStorage.Builder clientItems = VectorStorage.builder();
    VectorStorage.Builder serverItems = VectorStorage.builder();
    for (int k = 0; k < count; k++) {
      byte[] id = sha("id", name, k);
      ByteBuffer meta = ByteBuffer.wrap(sha("meta", name, k));
      long ts = base + (spread == 0 ? 0 : Integer.toUnsignedLong(meta.getInt(0)) % spread);
      long side = Integer.toUnsignedLong(meta.getInt(4)) % 1_000_000;
      if (side < clientOnlyPpm) {
        clientItems.add(ts, id);
      } else if (side < clientOnlyPpm + serverOnlyPpm) {
        serverItems.add(ts, id);
      } else {
        clientItems.add(ts, id);
        serverItems.add(ts, id);
      }
    }
    NegentropyClient client = Negentropy.client(clientItems.build(), clientLimit);
    NegentropyServer server = Negentropy.server(serverItems.build(), serverLimit);

    List<String[]> steps = s.steps();
    int i = 0;
    assertEquals("msg", steps.get(i)[0]);
    String msg = steps.get(i++)[1];
    String first = NegentropyHex.encode(client.initiate());
    VectorFiles.assertSameMessage(msg, first, name + ": initiate");
    int round = 0;
    while (true) {
      round++;
      assertEquals("reply", steps.get(i)[0]);
      String reply = steps.get(i++)[1];
      String ours = server.reconcileHex(msg);
      VectorFiles.assertSameMessage(reply, ours, name + ": server reply, round " + round);

      Set<String> expectedHave = new HashSet<>();
      Set<String> expectedNeed = new HashSet<>();
      while (steps.get(i)[0].equals("have") || steps.get(i)[0].equals("need")) {
        (steps.get(i)[0].equals("have") ? expectedHave : expectedNeed).add(steps.get(i)[1]);
        i++;
      }
      List<byte[]> have = new ArrayList<>();
      List<byte[]> need = new ArrayList<>();
      byte[] next = client.reconcile(VectorFiles.hex(reply), have, need);
      assertEquals(expectedHave, TestSets.hex(have), name + ": have, round " + round);
      assertEquals(expectedNeed, TestSets.hex(need), name + ": need, round " + round);
      assertEquals(have.size(), TestSets.hex(have).size(), name + ": duplicate have ids");

      String[] step = steps.get(i++);
      if (step[0].equals("done")) {
        assertNull(next, name + ": client should be done after round " + round);
        assertEquals(steps.size(), i, name + ": lines after done");
        return;
      }
      assertEquals("msg", step[0]);
      msg = step[1];
      assertTrue(next != null, name + ": client stopped early, round " + round);
      VectorFiles.assertSameMessage(
          msg, NegentropyHex.encode(next), name + ": client message, round " + round);
    }
  }

  /** The generator of the vectors' README: SHA-256 of "cairn-negentropy/{id|meta}/name/k". */
  private static byte[] sha(String tag, String name, int k) {
    String input = "cairn-negentropy/" + tag + "/" + name + "/" + k;
    return TestSets.sha256(input.getBytes(StandardCharsets.UTF_8));
  }
}
