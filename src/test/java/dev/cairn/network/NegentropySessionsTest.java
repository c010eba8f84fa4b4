package dev.cairn.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.config.ConfigLoader;
import dev.cairn.config.Limits;
import dev.cairn.nostr.negentropy.Negentropy;
import dev.cairn.nostr.negentropy.NegentropyHex;
import dev.cairn.nostr.negentropy.VectorStorage;
import io.vertx.core.json.JsonArray;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session rules of one conn-worker, without the tree: small sets are answered inline, so no
 * worker pool is needed here (the relay tests cover the pooled path).
 */
class NegentropySessionsTest {
  private static final long CONN = 7;

  @TempDir Path dir;
  private final List<JsonArray> sent = new ArrayList<>();
  private final Map<String, AtomicLong> gauges = new HashMap<>();
  private NegentropySessions sessions;
  private Limits limits;

  @BeforeEach
  void setUp() throws Exception {
    Path file = dir.resolve("c.json");
    Files.writeString(file, "{}");
    limits = ConfigLoader.load(file, Map.of("CAIRN_LIMITS_NEGENTROPY_MAX_SESSIONS", "2",
        "CAIRN_LIMITS_NEGENTROPY_IDLE_TIMEOUT", "10s")).limits();
    sessions = new NegentropySessions(limits, new SyncBudget(limits.negentropyMaxRecordsTotal()), null, t -> gauges.computeIfAbsent(t, x -> new AtomicLong()),
        (conn, frame) -> {
          assertEquals(CONN, conn);
          sent.add(new JsonArray(new String(frame, java.nio.charset.StandardCharsets.UTF_8)));
        });
  }

  private static byte[] initial() {
    return Negentropy.client(VectorStorage.builder().build()).initiate();
  }

  private static VectorStorage items(int n) {
    VectorStorage.Builder b = VectorStorage.builder(n);
    for (int i = 0; i < n; i++) {
      byte[] id = new byte[32];
      id[0] = (byte) i;
      b.add(1000 + i, id);
    }
    return b.build();
  }

  private long gauge() {
    return gauges.getOrDefault("t", new AtomicLong()).get();
  }

  private JsonArray last() {
    return sent.get(sent.size() - 1);
  }

  @Test
  void openAnswersOnceItsItemsAreRead() {
    long s = sessions.open(CONN, "t", "a", initial(), 0);
    assertTrue(s > 0);
    assertEquals(List.of(), sent, "nothing before the items");
    assertEquals(1, gauge());
    sessions.itemsRead(CONN, "a", s, items(3), null, 0);
    assertEquals("NEG-MSG", last().getString(0));
    assertEquals("a", last().getString(1));
    NegentropyHex.decode(last().getString(2));
  }

  @Test
  void aReplacedSessionIgnoresItsOldRead() {
    long first = sessions.open(CONN, "t", "a", initial(), 0);
    long second = sessions.open(CONN, "t", "a", initial(), 0);
    assertEquals(1, gauge());
    sessions.itemsRead(CONN, "a", first, items(3), null, 0);
    assertEquals(List.of(), sent);
    sessions.itemsRead(CONN, "a", second, items(3), null, 0);
    assertEquals("NEG-MSG", last().getString(0));
  }

  @Test
  void beyondTheLimitIsBlocked() {
    sessions.open(CONN, "t", "a", initial(), 0);
    sessions.open(CONN, "t", "b", initial(), 0);
    assertEquals(-1, sessions.open(CONN, "t", "c", initial(), 0));
    assertEquals(List.of("NEG-ERR", "c"), List.of(last().getString(0), last().getString(1)));
    assertTrue(last().getString(2).startsWith("blocked: "));
    assertEquals(2, gauge());
    sessions.close(CONN, "a");
    assertTrue(sessions.open(CONN, "t", "c", initial(), 0) > 0);
  }

  @Test
  void aReadErrorEndsTheSession() {
    long s = sessions.open(CONN, "t", "a", initial(), 0);
    sessions.itemsRead(CONN, "a", s, null, "blocked: too many records (9 > 5)", 0);
    assertEquals("NEG-ERR", last().getString(0));
    assertEquals("blocked: too many records (9 > 5)", last().getString(2));
    assertEquals(0, gauge());
    sessions.message(CONN, "a", initial(), 0);
    assertTrue(last().getString(2).startsWith("closed: "));
  }

  @Test
  void aMessageBeforeTheItemsIsAProtocolError() {
    sessions.open(CONN, "t", "a", initial(), 0);
    sessions.message(CONN, "a", initial(), 0);
    assertTrue(last().getString(2).startsWith("invalid: "), last().encode());
    assertEquals(0, gauge());
  }

  @Test
  void anUnusableMessageIsInvalid() {
    long s = sessions.open(CONN, "t", "a", initial(), 0);
    sessions.itemsRead(CONN, "a", s, items(3), null, 0);
    sessions.message(CONN, "a", new byte[] {0x61, 0x05}, 0);
    assertEquals("NEG-ERR", last().getString(0));
    assertTrue(last().getString(2).startsWith("invalid: "), last().encode());
    assertEquals(0, gauge());
  }

  @Test
  void idleSessionsAreClosedButNotThoseWaitingOnTheRelay() {
    long s = sessions.open(CONN, "t", "a", initial(), 0);
    sessions.open(CONN, "t", "reading", initial(), 0);
    sessions.itemsRead(CONN, "a", s, items(3), null, 0);
    sent.clear();
    sessions.sweepIdle(5_000);
    assertEquals(List.of(), sent);
    sessions.sweepIdle(System.currentTimeMillis() + 11_000);
    assertEquals(1, sent.size());
    assertEquals("a", last().getString(1));
    assertTrue(last().getString(2).startsWith("closed: idle"), last().encode());
    assertEquals(1, gauge()); // "reading" waits for its items: not idle
  }

  @Test
  void allSessionsShareOneItemBudget() {
    SyncBudget budget = new SyncBudget(5);
    sessions = new NegentropySessions(limits, budget, null, t -> gauges.computeIfAbsent(t, x -> new AtomicLong()),
        (conn, frame) -> sent.add(new JsonArray(new String(frame, java.nio.charset.StandardCharsets.UTF_8))));
    long a = sessions.open(CONN, "t", "a", initial(), 0);
    sessions.itemsRead(CONN, "a", a, items(3), null, 0);
    long b = sessions.open(CONN, "t", "b", initial(), 0);
    sessions.itemsRead(CONN, "b", b, items(3), null, 0);
    assertEquals("b", last().getString(1));
    assertTrue(last().getString(2).startsWith("blocked: "), last().encode());
    assertEquals(3, budget.held());
    sessions.close(CONN, "a");
    assertEquals(0, budget.held());
    b = sessions.open(CONN, "t", "b", initial(), 0);
    sessions.itemsRead(CONN, "b", b, items(3), null, 0);
    assertEquals("NEG-MSG", last().getString(0));
    sessions.open(CONN, "t", "b", initial(), 0); // replaced: its items are given back
    assertEquals(0, budget.held());
  }

  @Test
  void detachDropsEverySession() {
    sessions.open(CONN, "t", "a", initial(), 0);
    sessions.open(CONN, "t", "b", initial(), 0);
    sessions.detach(CONN);
    assertEquals(0, gauge());
    assertEquals(0, sessions.size());
  }
}
