package dev.cairn.nostr.negentropy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Single queries answered by the reference C++ server (cross-checked with the JS one): protocol
 * version fallback, skips, prefix bounds, saturating timestamps, and malformed messages. Where the
 * reference replies we must send the same bytes; where it throws we must throw {@link
 * NegentropyException}.
 */
class ReferenceServerRepliesTest {

  @TestFactory
  Stream<DynamicTest> answersLikeTheReferenceServer() {
    List<DynamicTest> tests = new ArrayList<>();
    VectorStorage.Builder items = null;
    VectorStorage storage = null;
    String server = null;
    String query = null;
    for (String[] f : VectorFiles.lines("server-replies.txt")) {
      switch (f[0]) {
        case "server" -> {
          server = f[1];
          items = VectorStorage.builder();
          storage = null;
        }
        case "item" -> items.add(Long.parseUnsignedLong(f[1]), f[2]);
        case "query" -> {
          if (storage == null) {
            storage = items.build();
          }
          query = f[1];
        }
        case "reply", "error" -> {
          VectorStorage s = storage;
          String q = query;
          String expected = f[0].equals("reply") ? f[1] : null;
          String reference = String.join(" ", f);
          tests.add(
              DynamicTest.dynamicTest(
                  server + " " + (q.isEmpty() ? "<empty>" : q),
                  () -> {
                    NegentropyServer ne = Negentropy.server(s);
                    if (expected != null) {
                      assertEquals(expected, ne.reconcileHex(q));
                    } else {
                      assertThrows(NegentropyException.class, () -> ne.reconcileHex(q), reference);
                    }
                  }));
        }
        case "end" -> {}
        default -> throw new IllegalStateException("unknown line " + f[0]);
      }
    }
    assertEquals(25, tests.size());
    return tests.stream();
  }
}
