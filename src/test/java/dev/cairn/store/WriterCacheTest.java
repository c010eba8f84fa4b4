package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The writer's page cache grows with large group commits and goes back to 16 MB once they stop. */
class WriterCacheTest extends StoreTestBase {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void largeCommitsGrowItAndItShrinksOnlyAfterAQuietMinute() {
    WriterCache c = new WriterCache();
    assertEquals(0, c.before(1, 0), "small commits leave the 16 MB of the connection");
    assertEquals(0, c.before(WriterCache.LARGE_BATCH - 1, SECOND));
    assertEquals(WriterCache.LARGE_KIB, c.before(WriterCache.LARGE_BATCH, 2 * SECOND));
    assertTrue(c.large());
    assertEquals(0, c.before(500, 3 * SECOND), "already large");
    // Small commits within a minute of the last large one keep it (load comes in waves).
    assertEquals(0, c.before(3, 3 * SECOND + WriterCache.SHRINK_AFTER_NANOS - 1));
    assertTrue(c.large());
    assertEquals(SqliteFiles.CACHE_KIB, c.before(3, 3 * SECOND + WriterCache.SHRINK_AFTER_NANOS));
    assertFalse(c.large());
    assertEquals(0, c.before(3, 200 * SECOND), "already small");
    assertEquals(WriterCache.LARGE_KIB, c.before(1_000, 201 * SECOND), "and large again");
  }

  @Test
  void theStoreSetsItOnItsWriterConnection() throws Exception {
    assertEquals(SqliteFiles.CACHE_KIB, store.writerCacheKib());
    stored(Ev.ev(1, Ev.ALICE, NOW, 1));
    assertEquals(SqliteFiles.CACHE_KIB, store.writerCacheKib(), "a one-event commit");
    List<NostrEvent> batch = new ArrayList<>();
    for (int i = 0; i < WriterCache.LARGE_BATCH; i++) {
      batch.add(Ev.ev(100 + i, Ev.BOB, NOW - i, 1, Ev.tag("t", "x" + i)));
    }
    List<PersistResult> results = store.persistBatch(batch, NOW);
    assertTrue(results.stream().allMatch(r -> r instanceof PersistResult.Stored), results.toString());
    assertEquals(WriterCache.LARGE_KIB, store.writerCacheKib());
    assertEquals(1 + WriterCache.LARGE_BATCH, q(Ev.limit(5000)).size(), "every event of both commits is there");
  }
}
