package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.NostrEvent;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A busy tenant's WAL file keeps its high-water mark (decision 0003); once the tenant is quiet it is cut
 * back to nothing, without waiting for the writer or a reader, and nothing stored is lost.
 */
class WalCutBackTest extends StoreTestBase {
  private static final String BODY = "x".repeat(1000);
  private long nextId = 1;

  @Test
  void aQuietTenantsWalIsCutBackOnceNothingIsInTheWay() throws Exception {
    store.walRestartFrames(64); // the restart bound, and the size below which a WAL is left alone: 256 KiB
    Path wal = Path.of(store.file() + "-wal");
    try (Connection reader = DriverManager.getConnection("jdbc:sqlite:" + store.file());
        Statement st = reader.createStatement()) {
      st.execute("BEGIN");
      assertEquals(0, count(st), "the reader's snapshot: before any write");
      writeBatches(40);
      long grown = Files.size(wal);
      assertTrue(grown > 2L << 20, "the WAL grew: " + grown);

      WalCheckpoints.Cut blocked = store.cutBackWal();
      assertEquals(WalCheckpoints.Outcome.BLOCKED, blocked.outcome(), "a reader on an older snapshot is in the way");
      assertEquals(grown, blocked.bytesBefore());
      assertTrue(Files.size(wal) >= grown, "nothing cut while the reader needs the WAL");
      assertEquals(0, count(st), "the reader still reads its snapshot");
      st.execute("COMMIT");
    }

    WalCheckpoints.Cut cut = store.cutBackWal();
    assertEquals(WalCheckpoints.Outcome.DONE, cut.outcome());
    assertEquals(0, Files.size(wal), "the WAL file is empty");
    assertEquals(2000, store.count(List.of(Ev.all()), Long.MAX_VALUE, NOW), "every event is still there");
    assertEquals("ok", quickCheck(store.file()));

    stored(NostrEvent.of(Ev.id(nextId * 0xC2B2AE3D27D4EB4FL), Ev.id(7), NOW, 1, List.of(), "after the cut", Ev.SIG));
    assertEquals(2001, store.count(List.of(Ev.all()), Long.MAX_VALUE, NOW), "writes go on after the cut");
    assertEquals(WalCheckpoints.Outcome.SMALL, store.cutBackWal().outcome(), "a WAL within its bound is left alone");
    store.close();
    SqliteTenantStore reopened = SqliteTenantStore.open(store.file(), 1);
    try {
      assertEquals(2001, reopened.count(List.of(Ev.all()), Long.MAX_VALUE, NOW), "and all of it survives a reopen");
    } finally {
      reopened.close();
    }
  }

  @Test
  void theUpkeepCutsTheWalBackOnlyOnceTheWritesStop() throws Exception {
    store.walRestartFrames(64);
    Path wal = Path.of(store.file() + "-wal");
    Vertx vertx = Vertx.vertx();
    SqliteUpkeep upkeep = new SqliteUpkeep(vertx, "quiet", new ThreadPriority(false), 2_500);
    try {
      // writes every 100 ms for 5 s: twice the quiet time, and the WAL file is never cut meanwhile
      long until = System.nanoTime() + 5_000_000_000L;
      while (System.nanoTime() < until) {
        writeBatches(2);
        vertx.runOnContext(v -> upkeep.afterWrite(store));
        Thread.sleep(100);
        assertTrue(Files.size(wal) > 0, "the WAL file was cut while writes were coming");
      }
      long grown = Files.size(wal);
      assertTrue(grown > 256 << 10, "the WAL grew past its bound: " + grown);
      long quietUntil = System.nanoTime() + 15_000_000_000L;
      while (Files.size(wal) > 0 && System.nanoTime() < quietUntil) {
        Thread.sleep(50);
      }
      assertEquals(0, Files.size(wal), "the WAL file is cut back once the tenant is quiet");
      long stored = store.count(List.of(Ev.all()), Long.MAX_VALUE, NOW);
      assertEquals((nextId - 1), stored, "every event is still there");
    } finally {
      upkeep.close().toCompletionStage().toCompletableFuture().get();
      vertx.close().toCompletionStage().toCompletableFuture().get();
    }
  }

  private void writeBatches(int batches) {
    for (int b = 0; b < batches; b++) {
      List<NostrEvent> batch = new ArrayList<>(50);
      for (int i = 0; i < 50; i++, nextId++) {
        // random-looking ids and authors spread the index writes over many pages, as real traffic does
        batch.add(NostrEvent.of(Ev.id(nextId * 0xC2B2AE3D27D4EB4FL), Ev.id(nextId * 0x9E3779B97F4A7C15L >>> 8),
            NOW - (nextId % 9973), 1, List.of(List.of("t", "tag" + (nextId % 500))), BODY + nextId, Ev.SIG));
      }
      store.persistBatch(batch, NOW);
    }
  }

  private static long count(Statement st) throws Exception {
    try (ResultSet rs = st.executeQuery("SELECT count(*) FROM events")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
