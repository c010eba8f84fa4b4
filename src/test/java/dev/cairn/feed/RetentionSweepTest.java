package dev.cairn.feed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.store.SqliteTenantStore;
import dev.cairn.store.TenantWriters;
import dev.cairn.store.feed.FeedChange;
import dev.cairn.store.feed.FeedSettings;
import dev.cairn.store.feed.FeedTable;
import dev.cairn.store.feed.RetentionSweep;
import dev.cairn.store.feed.SqliteFeedStore;
import dev.cairn.store.feed.SweepResult;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lazy retention sweep: only rows older than the retention, in capped batches, throttled. */
class RetentionSweepTest {
  @TempDir
  Path dir;

  private static final long RETENTION = 10_000;

  private static FeedSettings settings(int batch, int maxBatches) {
    return new FeedSettings(Duration.ofMillis(RETENTION), Duration.ofSeconds(15), 1000, Duration.ofSeconds(30),
        10_000, 1_000, 8, batch, maxBatches, Duration.ofHours(1), Duration.ofSeconds(5));
  }

  private static void insert(SqliteTenantStore s, long ts, int n) {
    List<FeedChange> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(new FeedChange(ts + i, FeedChange.STORED, "id" + ts + "-" + i, 1, "pk", null, 0));
    }
    s.withWriter(1000, c -> FeedTable.insert(c, rows, 30));
  }

  private static List<Long> timestamps(SqliteTenantStore s) {
    return s.withReaderConnection(c -> {
      List<Long> out = new ArrayList<>();
      try (ResultSet rs = c.prepare("SELECT ts FROM feed_events ORDER BY seq").executeQuery()) {
        while (rs.next()) {
          out.add(rs.getLong(1));
        }
      }
      return out;
    });
  }

  @Test
  void deletesOnlyRowsOlderThanRetentionInCappedBatches() throws Exception {
    AtomicLong clock = new AtomicLong(1_000_000);
    Vertx vertx = Vertx.vertx();
    try (SqliteTenantStore s = SqliteTenantStore.open(dir.resolve("t.db"), 1)) {
      TenantWriters writer = new TenantWriters(vertx.getOrCreateContext(), "sweep-test", 1);
      WorkerExecutor pool = vertx.createSharedWorkerExecutor("sweep-test-pool", 1);
      SqliteFeedStore store = new SqliteFeedStore("t", s, writer, pool, pool, settings(10, 2));
      long cutoff = clock.get() - RETENTION;
      insert(s, cutoff - 100, 25);          // older than the retention
      insert(s, cutoff, 3);                 // exactly at the cutoff: kept
      insert(s, clock.get() - 10, 5);       // recent
      RetentionSweep sweep = new RetentionSweep(settings(10, 2), clock::get);

      SweepResult r = sweep.maybeSweep("t", store).toCompletionStage().toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      assertEquals(20, r.deleted(), "two batches of 10: the cap per sweep");
      assertEquals(2, r.batches());
      assertEquals("t", r.scope());
      assertEquals(13, timestamps(s).size());
      assertEquals(13, r.bounds().rowsEstimate(), "estimate from the retained seq range (21..33)");

      assertNull(sweep.maybeSweep("t", store), "at most once per interval per tenant");
      clock.addAndGet(Duration.ofHours(1).toMillis());
      // An hour later the cutoff moved past every row: the leftovers go in the next sweep.
      SweepResult next = sweep.maybeSweep("t", store).toCompletionStage().toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      assertEquals(13, next.deleted());
      assertTrue(timestamps(s).isEmpty());
      writer.shutdown(1000);
    } finally {
      vertx.close();
    }
  }

  @Test
  void keepsEveryRowAtOrAfterTheCutoff() throws Exception {
    try (SqliteTenantStore s = SqliteTenantStore.open(dir.resolve("u.db"), 1)) {
      insert(s, 100, 7);
      insert(s, 500, 4);
      int deleted = s.withWriter(1000, c -> RetentionSweep.sweepNow(c, 500, 3, 100));
      assertEquals(7, deleted);
      assertEquals(List.of(500L, 501L, 502L, 503L), timestamps(s));
      assertEquals(0, (int) s.withWriter(1000, c -> FeedTable.sweepBatch(c, 500, 3)));
    }
  }
}
