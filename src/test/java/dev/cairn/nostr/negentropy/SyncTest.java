package dev.cairn.nostr.negentropy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Our client against our server on random sets: the client must end up knowing exactly the ids only
 * it has (have) and only the server has (need), within every frame size limit, in a bounded number
 * of rounds.
 */
class SyncTest {
  private static final long CREATED_AT = 1_700_000_000L;

  static Stream<Arguments> cases() {
    return Stream.of(
        // name, count, timestamp base, spread, client-only ‰, server-only ‰, client/server limit
        Arguments.of("both empty", 0, CREATED_AT, 1000, 0, 0, 0L, 0L),
        Arguments.of("client empty", 5000, CREATED_AT, 5000, 0, 1000, 0L, 0L),
        Arguments.of("server empty", 5000, CREATED_AT, 5000, 1000, 0, 0L, 0L),
        Arguments.of("identical", 20000, CREATED_AT, 20000, 0, 0, 0L, 0L),
        Arguments.of("one percent", 20000, CREATED_AT, 20000, 5, 5, 0L, 0L),
        Arguments.of("client subset", 20000, CREATED_AT, 20000, 0, 10, 0L, 0L),
        Arguments.of("server subset", 20000, CREATED_AT, 20000, 10, 0, 0L, 0L),
        Arguments.of("all different", 4000, CREATED_AT, 4000, 500, 500, 0L, 0L),
        Arguments.of("duplicate timestamps", 10000, CREATED_AT, 7, 10, 10, 0L, 0L),
        Arguments.of("one timestamp", 5000, CREATED_AT, 1, 20, 20, 0L, 0L),
        Arguments.of("timestamp zero", 3000, 0L, 2, 20, 20, 0L, 0L),
        Arguments.of("unsigned timestamps", 5000, Long.MAX_VALUE - 2000, 4000, 10, 10, 0L, 0L),
        Arguments.of("limits, one percent", 20000, CREATED_AT, 20000, 5, 5, 4096L, 4096L),
        Arguments.of("limits, all different", 4000, CREATED_AT, 4000, 500, 500, 4096L, 4096L),
        Arguments.of("limits, client empty", 5000, CREATED_AT, 5000, 0, 1000, 4096L, 4096L),
        Arguments.of("limits, server empty", 5000, CREATED_AT, 5000, 1000, 0, 4096L, 4096L),
        Arguments.of("client limit only", 10000, CREATED_AT, 10000, 100, 100, 4096L, 0L),
        Arguments.of("server limit only", 10000, CREATED_AT, 10000, 100, 100, 0L, 4096L),
        Arguments.of("limits, duplicate timestamps", 10000, CREATED_AT, 3, 50, 50, 5000L, 8000L),
        Arguments.of("large limits", 30000, CREATED_AT, 30000, 30, 30, 60000L, 500000L));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void clientLearnsExactlyTheDifference(
      String name,
      int count,
      long base,
      int spread,
      int clientOnly,
      int serverOnly,
      long clientLimit,
      long serverLimit)
      throws Exception {
    List<List<Item>> sides =
        TestSets.split(name.hashCode(), count, base, spread, clientOnly, serverOnly);
    Set<String> clientIds = TestSets.hexIds(sides.get(0));
    Set<String> serverIds = TestSets.hexIds(sides.get(1));
    Set<String> expectedHave = new HashSet<>(clientIds);
    expectedHave.removeAll(serverIds);
    Set<String> expectedNeed = new HashSet<>(serverIds);
    expectedNeed.removeAll(clientIds);

    NegentropyClient client = Negentropy.client(TestSets.storage(sides.get(0)), clientLimit);
    NegentropyServer server = Negentropy.server(TestSets.storage(sides.get(1)), serverLimit);
    TestSets.Outcome outcome = TestSets.sync(client, server, 1000);

    assertEquals(expectedHave, outcome.have(), "have");
    assertEquals(expectedNeed, outcome.need(), "need");
    if (clientLimit != 0) {
      assertTrue(outcome.maxUp() <= clientLimit, "client message of " + outcome.maxUp());
    }
    if (serverLimit != 0) {
      assertTrue(outcome.maxDown() <= serverLimit, "server reply of " + outcome.maxDown());
    }
  }
}
