package dev.cairn.store.mysql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.Hex;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistOutcome;
import dev.cairn.store.PersistResult;
import dev.cairn.store.Removal;
import dev.cairn.store.RemovalReason;
import dev.cairn.store.StoreException;
import dev.cairn.store.TagKey;
import dev.cairn.store.WriteRules;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * MysqlEventWriter against a real server (MariaDB at 127.0.0.1:3306 as root, or
 * {@code CAIRN_TEST_MYSQL_URL}): the write rules of PersistTest / DeletionTest on MySQL rows, seqs from
 * the counter row, and two pods (two pools) writing one tenant at once. Each test gets a fresh
 * migrated database, dropped after.
 */
class MysqlEventWriterTest extends MysqlTestBase {
  private static final long NOW = 1_700_000_000L;
  private static final String T = "t1";
  private static final String ALICE = "a".repeat(64);
  private static final String BOB = "b".repeat(64);


  private final List<Pool> pools = new ArrayList<>();
  private String db;
  private Pool pool;
  private final MysqlEventWriter writer = new MysqlEventWriter(T);



  @BeforeEach
  void createDatabase() throws Exception {
    db = mysql.createDatabase("_w");
    pool = pool(4);
    await(new MysqlMigrator("db/mysql").migrate(pool));
  }

  @AfterEach
  void dropDatabase() throws Exception {
    for (Pool p : pools) {
      await(p.close());
    }
    mysql.dropDatabase(db);
  }

  @Test
  void storesBatchWithSeqsOneToNAndIndexesTags() throws Exception {
    NostrEvent a = ev(1, ALICE, 100, 1, tag("t", "nostr"), tag("p", BOB), tag("alt", "not indexed"));
    NostrEvent b = ev(2, ALICE, 101, 1);
    NostrEvent c = ev(3, BOB, 102, 1, tag("t", "nostr"));
    assertEquals(List.of(1L, 2L, 3L), seqs(put(a, b, c)));
    assertEquals(3, counter());
    assertEquals(List.of(Ev.id(1), Ev.id(2), Ev.id(3)), storedIds());
    Row r = await(pool.preparedQuery("SELECT pubkey, created_at, kind, d_tag, expiration, json FROM events"
        + " WHERE tenant_id = ? AND seq = 1").execute(Tuple.of(T))).iterator().next();
    assertEquals(ALICE, Hex.encode(r.getBuffer(0).getBytes()));
    assertEquals(100L, r.getLong(1));
    assertEquals(null, r.getValue(3));
    assertArrayEquals(a.json(), r.getBuffer(5).getBytes());
    assertEquals(List.of(1L, 3L), tagSeqs("t", "nostr"));
    assertEquals(List.of(1L), tagSeqs("p", BOB));
    assertEquals(3, count("tag_index"));
    // One EventStored outbox row per stored event, naming it by seq, ids from the counter row.
    assertEquals(List.of("1 EventStored 1", "2 EventStored 2", "3 EventStored 3"), outbox());
    // The next batch continues after the counter.
    assertEquals(List.of(4L), seqs(put(ev(4, ALICE, 103, 1))));
    assertEquals(4, queueCounter());
  }

  @Test
  void sameIdIsDuplicateAcrossAndWithinBatches() throws Exception {
    put(ev(1, ALICE, 100, 1));
    List<PersistResult> r = put(ev(1, ALICE, 100, 1), ev(2, ALICE, 100, 1), ev(2, ALICE, 100, 1));
    assertEquals(new PersistResult.Duplicate(WriteRules.DUPLICATE_ID), r.get(0));
    assertEquals(2L, ((PersistResult.Stored) r.get(1)).seq());
    assertEquals(new PersistResult.Duplicate(WriteRules.DUPLICATE_ID), r.get(2));
    assertEquals(2, counter());
    assertEquals(2, count("events"));
  }

  @Test
  void ephemeralAndExpiredAreNotStored() throws Exception {
    List<PersistResult> r = put(ev(1, ALICE, 100, 20001), ev(2, ALICE, 100, 1, tag("expiration", String.valueOf(NOW))),
        ev(3, ALICE, 100, 1, tag("expiration", String.valueOf(NOW + 1))));
    assertEquals(new PersistResult.Rejected(WriteRules.INVALID_EPHEMERAL), r.get(0));
    assertEquals(new PersistResult.Rejected(WriteRules.INVALID_EXPIRED), r.get(1));
    assertEquals(1L, ((PersistResult.Stored) r.get(2)).seq());
    assertEquals(NOW + 1, await(pool.preparedQuery("SELECT expiration FROM events WHERE tenant_id = ?")
        .execute(Tuple.of(T))).iterator().next().getLong(0));
    assertEquals(1, counter());
  }

  @Test
  void replaceableNewerReplacesOlderAndOlderIsDuplicate() throws Exception {
    PersistResult.Stored old = stored(ev(1, ALICE, 100, 0, tag("t", "x")));
    PersistResult.Stored neu = stored(ev(2, ALICE, 200, 0));
    assertEquals(List.of(new Removal(Ev.id(1), 0, ALICE, old.seq(), RemovalReason.REPLACED)), neu.removed());
    assertEquals(List.of(Ev.id(2)), storedIds());
    assertEquals(List.of(), tagSeqs("t", "x"));
    assertEquals(List.of(old.seq()), removedSeqs());
    assertEquals(List.of("1 EventStored 1", "2 EventStored 2", "3 EventDeleted -"), outbox());
    String body = await(pool.preparedQuery("SELECT body FROM event_queue WHERE tenant_id = ? AND id = 3")
        .execute(Tuple.of(T))).iterator().next().getBuffer(0).toString();
    assertTrue(body.contains("\"reason\":\"replaced\"") && body.contains(Ev.id(1)), body);
    assertEquals(new PersistResult.Duplicate(WriteRules.DUPLICATE_OLDER), put(ev(3, ALICE, 150, 0)).get(0));
    assertEquals(3, queueCounter());
    // Other pubkey, other kind: independent. The replaced row's d_tag is '' (replaceable).
    stored(ev(4, BOB, 50, 0));
    stored(ev(5, ALICE, 10, 10002));
    assertEquals(List.of(Ev.id(2), Ev.id(4), Ev.id(5)), storedIds());
    assertEquals(3, count("events"));
    assertEquals(3, await(pool.preparedQuery("SELECT COUNT(*) FROM events WHERE tenant_id = ? AND d_tag = ''")
        .execute(Tuple.of(T))).iterator().next().getLong(0));
  }

  @Test
  void addressableIsKeyedByDTag() throws Exception {
    stored(ev(1, ALICE, 100, 30023, tag("d", "a")));
    stored(ev(2, ALICE, 100, 30023, tag("d", "b")));
    PersistResult.Stored neu = stored(ev(3, ALICE, 200, 30023, tag("d", "a")));
    assertEquals(List.of(Ev.id(1)), neu.removed().stream().map(Removal::id).toList());
    assertEquals(new PersistResult.Duplicate(WriteRules.DUPLICATE_OLDER),
        put(ev(4, ALICE, 150, 30023, tag("d", "a"))).get(0));
    assertEquals(List.of(Ev.id(2), Ev.id(3)), storedIds());
    // Two versions of one address in one batch: the newer stays.
    List<PersistResult> r = put(ev(5, ALICE, 300, 30023, tag("d", "c")), ev(6, ALICE, 400, 30023, tag("d", "c")));
    assertEquals(List.of(Ev.id(5)), ((PersistResult.Stored) r.get(1)).removed().stream().map(Removal::id).toList());
    assertEquals(List.of(Ev.id(2), Ev.id(3), Ev.id(6)), storedIds());
  }

  @Test
  void eTagDeletionRemovesTargetAndTombstoneBlocksRepublish() throws Exception {
    PersistResult.Stored target = stored(ev(1, ALICE, 100, 1, tag("t", "x")));
    PersistResult.Stored del = stored(ev(2, ALICE, 200, 5, tag("e", Ev.id(1))));
    assertEquals(List.of(new Removal(Ev.id(1), 1, ALICE, target.seq(), RemovalReason.NIP09)), del.removed());
    assertEquals(List.of(Ev.id(2)), storedIds());
    assertEquals(List.of(), tagSeqs("t", "x"));
    assertEquals(List.of(target.seq()), removedSeqs());
    Row t = await(pool.preparedQuery("SELECT target, pubkey, created_at, deletion_id FROM deletions"
        + " WHERE tenant_id = ? AND target_key = UNHEX(SHA2(?, 256))").execute(Tuple.of(T, Ev.id(1)))).iterator().next();
    assertEquals(Ev.id(1), t.getBuffer(0).toString());
    assertEquals(ALICE, Hex.encode(t.getBuffer(1).getBytes()));
    assertEquals(200L, t.getLong(2));
    assertEquals(Ev.id(2), Hex.encode(t.getBuffer(3).getBytes()));
    assertEquals(new PersistResult.Rejected(WriteRules.BLOCKED_DELETED), put(ev(1, ALICE, 100, 1)).get(0));
    // Another pubkey's deletion neither removes nor blocks.
    stored(ev(3, ALICE, 100, 1));
    assertTrue(stored(ev(4, BOB, 300, 5, tag("e", Ev.id(3)))).removed().isEmpty());
    assertEquals(List.of(Ev.id(2), Ev.id(3), Ev.id(4)), storedIds());
  }

  @Test
  void deletionAndTargetInOneBatch() throws Exception {
    List<PersistResult> r = put(ev(1, ALICE, 100, 1, tag("t", "x")), ev(2, ALICE, 200, 5, tag("e", Ev.id(1))),
        ev(1, ALICE, 100, 1));
    assertEquals(1L, ((PersistResult.Stored) r.get(0)).seq());
    assertEquals(List.of(new Removal(Ev.id(1), 1, ALICE, 1, RemovalReason.NIP09)),
        ((PersistResult.Stored) r.get(1)).removed());
    assertEquals(new PersistResult.Rejected(WriteRules.BLOCKED_DELETED), r.get(2));
    assertEquals(List.of(Ev.id(2)), storedIds());
    assertEquals(List.of(), tagSeqs("t", "x"));
    assertEquals(List.of(1L), removedSeqs());
    assertEquals(2, counter());
  }

  @Test
  void aTagDeletionRemovesVersionsUpToItsTimeAndNewerTombstoneRaisesIt() throws Exception {
    String address = "30023:" + ALICE + ":slug";
    stored(ev(1, ALICE, 100, 30023, tag("d", "slug")));
    PersistResult.Stored del = stored(ev(2, ALICE, 150, 5, tag("a", address)));
    assertEquals(List.of(Ev.id(1)), del.removed().stream().map(Removal::id).toList());
    assertEquals(new PersistResult.Rejected(WriteRules.BLOCKED_DELETED),
        put(ev(3, ALICE, 150, 30023, tag("d", "slug"))).get(0));
    stored(ev(4, ALICE, 300, 5, tag("a", address)));
    assertEquals(new PersistResult.Rejected(WriteRules.BLOCKED_DELETED),
        put(ev(5, ALICE, 250, 30023, tag("d", "slug"))).get(0));
    stored(ev(6, ALICE, 301, 30023, tag("d", "slug")));
    // An older deletion does not lower the tombstone.
    stored(ev(7, ALICE, 120, 5, tag("a", address)));
    Row t = await(pool.preparedQuery("SELECT created_at, deletion_id FROM deletions"
        + " WHERE tenant_id = ? AND target_key = UNHEX(SHA2(?, 256))").execute(Tuple.of(T, address))).iterator().next();
    assertEquals(300L, t.getLong(0));
    assertEquals(Ev.id(4), Hex.encode(t.getBuffer(1).getBytes()));
    assertEquals(List.of(Ev.id(2), Ev.id(4), Ev.id(6), Ev.id(7)), storedIds());
  }

  @Test
  void feedRowsFollowTheCounterAndNameTheirEvents() throws Exception {
    PersistOutcome first = await(writer.persist(pool, List.of(ev(1, ALICE, 100, 0), ev(2, ALICE, 200, 0)), NOW));
    assertEquals(null, first.feedError());
    assertEquals(List.of(), first.feed()); // handed back only when they failed
    assertEquals(3, first.feedBounds().high());
    assertEquals(1, first.feedBounds().oldest());
    assertEquals(3, first.feedBounds().inserted());
    assertEquals(List.of("1 stored 1", "2 stored 2", "3 deleted replaced"), feed());
    Row r = await(pool.preparedQuery("SELECT event_id, pubkey, kind FROM feed_events WHERE tenant_id = ? AND seq = 3")
        .execute(Tuple.of(T))).iterator().next();
    assertEquals(Ev.id(1), Hex.encode(r.getBuffer(0).getBytes()));
    assertEquals(ALICE, Hex.encode(r.getBuffer(1).getBytes()));
    assertEquals(0, r.getInteger(2));
    assertEquals(3, await(pool.preparedQuery("SELECT feed_seq FROM tenant_counters WHERE tenant_id = ?")
        .execute(Tuple.of(T))).iterator().next().getLong(0));
  }

  @Test
  void failedFeedInsertIsRolledBackAloneAndTheEventsCommit() throws Exception {
    put(ev(1, ALICE, 100, 1)); // feed seq 1
    // A row in the way of the next feed seq: the feed insert fails on its key.
    await(pool.preparedQuery("INSERT INTO feed_events(tenant_id, seq, ts, type, event_id, kind, pubkey)"
        + " VALUES (?, 2, 0, 'stored', UNHEX(REPEAT('00', 32)), 1, UNHEX(REPEAT('00', 32)))").execute(Tuple.of(T)));
    PersistOutcome o = await(writer.persist(pool, List.of(ev(2, ALICE, 101, 1), ev(3, ALICE, 102, 1)), NOW));
    assertEquals(List.of(2L, 3L), seqs(o.results()));
    assertTrue(o.feedError() != null && o.feedError().getMessage().contains("Duplicate"), String.valueOf(o.feedError()));
    assertEquals(2, o.feed().size());
    assertEquals(null, o.feedBounds());
    assertEquals(List.of(Ev.id(1), Ev.id(2), Ev.id(3)), storedIds());
    assertEquals(List.of("1 EventStored 1", "2 EventStored 2", "3 EventStored 3"), outbox());
    assertEquals(List.of("1 stored 1", "2 stored 0"), feed()); // nothing of the failed insert stayed
    assertEquals(1, await(pool.preparedQuery("SELECT feed_seq FROM tenant_counters WHERE tenant_id = ?")
        .execute(Tuple.of(T))).iterator().next().getLong(0));
  }

  @Test
  void failedWriteRollsTheWholeBatchBackWithAClearError() throws Exception {
    put(ev(1, ALICE, 100, 1));
    // A row at seq 3 the counter does not know about: the batch's second insert hits its key.
    await(pool.preparedQuery("INSERT INTO events(tenant_id, seq, id, pubkey, created_at, kind, json)"
        + " VALUES (?, 3, UNHEX(REPEAT('ff', 32)), UNHEX(REPEAT('ff', 32)), 1, 1, '{}')").execute(Tuple.of(T)));
    java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
        java.util.concurrent.ExecutionException.class, () -> put(ev(2, ALICE, 101, 1, tag("t", "x")), ev(3, ALICE, 102, 1)));
    StoreException se = assertInstanceOf(StoreException.class, e.getCause());
    assertTrue(se.getMessage().contains("batch of 2 events for tenant t1 failed (nothing of it was written)")
        && se.getMessage().contains("Duplicate entry"), se.getMessage());
    assertEquals(1, counter());
    assertEquals(List.of(Ev.id(1), "f".repeat(64)), storedIds());
    assertEquals(List.of(), tagSeqs("t", "x"));
    assertEquals(List.of("1 EventStored 1"), outbox());
  }

  @Test
  void tenantsAreSeparate() throws Exception {
    put(ev(1, ALICE, 100, 1));
    List<PersistResult> r = await(new MysqlEventWriter("t2").persist(pool, List.of(ev(1, ALICE, 100, 1)), NOW)).results();
    assertEquals(1L, ((PersistResult.Stored) r.get(0)).seq());
    assertEquals(2, await(pool.query("SELECT COUNT(*) FROM events").execute()).iterator().next().getLong(0));
  }

  @Test
  void twoPodsWritingOneTenantGetContiguousSeqBlocksInCommitOrder() throws Exception {
    // Two pools with their own writers: two pods. Each has several transactions in flight at once, so
    // the counter row lock is contended within a pod and across pods.
    Pool podA = pool(4);
    Pool podB = pool(4);
    MysqlEventWriter writerA = new MysqlEventWriter(T);
    MysqlEventWriter writerB = new MysqlEventWriter(T);
    int batches = 15;
    int perBatch = 4;
    List<Future<PersistOutcome>> all = new ArrayList<>();
    long n = 0;
    for (int i = 0; i < batches; i++) {
      for (int pod = 0; pod < 2; pod++) {
        List<NostrEvent> batch = new ArrayList<>();
        for (int j = 0; j < perBatch; j++) {
          n++;
          batch.add(ev(n, pod == 0 ? ALICE : BOB, 1000 + n, 1, tag("t", "load")));
        }
        all.add(pod == 0 ? writerA.persist(podA, batch, NOW) : writerB.persist(podB, batch, NOW));
      }
    }
    await(Future.all(all));
    TreeSet<Long> seen = new TreeSet<>();
    for (Future<PersistOutcome> f : all) {
      assertEquals(null, f.result().feedError());
      List<Long> s = seqs(f.result().results());
      // One transaction's seqs are one block: no other commit took a number in between.
      for (int j = 1; j < s.size(); j++) {
        assertEquals(s.get(j - 1) + 1, s.get(j), "batch seqs " + s);
      }
      for (long x : s) {
        assertTrue(seen.add(x), "seq " + x + " handed out twice");
      }
    }
    long total = (long) batches * 2 * perBatch;
    assertEquals(LongStream.rangeClosed(1, total).boxed().toList(), List.copyOf(seen));
    assertEquals(total, counter());
    assertEquals(total, count("events"));
    assertEquals(List.copyOf(seen), tagSeqs("t", "load"));
    // Outbox ids come from the same locked row: 1..total, and in the order of the seqs they name.
    List<String> expected = new ArrayList<>();
    for (long i = 1; i <= total; i++) {
      expected.add(i + " EventStored " + i);
    }
    assertEquals(expected, outbox());
    // Feed seqs likewise: row i names store seq i.
    List<String> feedExpected = new ArrayList<>();
    for (long i = 1; i <= total; i++) {
      feedExpected.add(i + " stored " + i);
    }
    assertEquals(feedExpected, feed());
  }

  @Test
  void twoPodsReplacingOneAddressLeaveOnlyTheNewest() throws Exception {
    // Each transaction must read the rows the previous holder of the counter lock committed, or two
    // versions of one replaceable event would survive.
    Pool podA = pool(4);
    Pool podB = pool(4);
    MysqlEventWriter writerA = new MysqlEventWriter(T);
    MysqlEventWriter writerB = new MysqlEventWriter(T);
    List<Future<PersistOutcome>> all = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      NostrEvent e = ev(i, ALICE, 1000 + (i * 7L) % 20, 0); // versions arrive out of created_at order
      all.add(i % 2 == 0 ? writerA.persist(podA, List.of(e), NOW) : writerB.persist(podB, List.of(e), NOW));
    }
    await(Future.all(all));
    List<String> left = storedIds();
    assertEquals(1, left.size(), left.toString());
    long newest = 0;
    for (int i = 1; i <= 20; i++) {
      newest = (i * 7L) % 20 > (newest * 7L) % 20 ? i : newest;
    }
    assertEquals(Ev.id(newest), left.get(0));
    long stored = all.stream().filter(f -> f.result().results().get(0) instanceof PersistResult.Stored).count();
    assertEquals(stored - 1, removedSeqs().size());
  }

  // --- helpers

  private List<PersistResult> put(NostrEvent... batch) throws Exception {
    return await(writer.persist(pool, List.of(batch), NOW)).results();
  }

  private PersistResult.Stored stored(NostrEvent e) throws Exception {
    return assertInstanceOf(PersistResult.Stored.class, put(e).get(0));
  }

  private static List<Long> seqs(List<PersistResult> results) {
    return results.stream().map(r -> assertInstanceOf(PersistResult.Stored.class, r).seq()).toList();
  }

  private List<String> storedIds() throws Exception {
    List<String> out = new ArrayList<>();
    for (Row r : await(pool.preparedQuery("SELECT id FROM events WHERE tenant_id = ? ORDER BY seq").execute(Tuple.of(T)))) {
      out.add(Hex.encode(r.getBuffer(0).getBytes()));
    }
    return out;
  }

  private List<Long> tagSeqs(String name, String value) throws Exception {
    List<Long> out = new ArrayList<>();
    for (Row r : await(pool.preparedQuery("SELECT seq FROM tag_index WHERE tenant_id = ? AND k = ? ORDER BY seq")
        .execute(Tuple.of(T, TagKey.of(name, value))))) {
      out.add(r.getLong(0));
    }
    return out;
  }

  private List<Long> removedSeqs() throws Exception {
    List<Long> out = new ArrayList<>();
    for (Row r : await(pool.preparedQuery("SELECT seq FROM removed_events WHERE tenant_id = ? ORDER BY seq")
        .execute(Tuple.of(T)))) {
      out.add(r.getLong(0));
    }
    return out;
  }

  private long counter() throws Exception {
    return await(pool.preparedQuery("SELECT event_seq FROM tenant_counters WHERE tenant_id = ?").execute(Tuple.of(T)))
        .iterator().next().getLong(0);
  }

  /** The outbox as "id type stored_seq" lines, by id. */
  private List<String> outbox() throws Exception {
    List<String> out = new ArrayList<>();
    for (Row r : await(pool.preparedQuery("SELECT id, type, stored_seq FROM event_queue WHERE tenant_id = ?"
        + " AND status = 'pending' ORDER BY id").execute(Tuple.of(T)))) {
      out.add(r.getLong(0) + " " + r.getString(1) + " " + (r.getValue(2) == null ? "-" : r.getLong(2)));
    }
    return out;
  }

  /** The feed as "seq type store_seq-or-reason" lines, by seq. */
  private List<String> feed() throws Exception {
    List<String> out = new ArrayList<>();
    for (Row r : await(pool.preparedQuery("SELECT seq, type, store_seq, reason FROM feed_events WHERE tenant_id = ?"
        + " ORDER BY seq").execute(Tuple.of(T)))) {
      out.add(r.getLong(0) + " " + r.getString(1) + " "
          + (r.getValue(2) != null ? String.valueOf(r.getLong(2)) : r.getValue(3) != null ? r.getString(3) : "0"));
    }
    return out;
  }

  private long queueCounter() throws Exception {
    return await(pool.preparedQuery("SELECT queue_id FROM tenant_counters WHERE tenant_id = ?").execute(Tuple.of(T)))
        .iterator().next().getLong(0);
  }

  private long count(String table) throws Exception {
    return await(pool.preparedQuery("SELECT COUNT(*) FROM " + table + " WHERE tenant_id = ?").execute(Tuple.of(T)))
        .iterator().next().getLong(0);
  }

  private Pool pool(int size) {
    Pool p = mysql.pool(db, size);
    pools.add(p);
    return p;
  }

  private static List<String> tag(String... parts) {
    return Arrays.asList(parts);
  }

  @SafeVarargs
  private static NostrEvent ev(long n, String pubkey, long createdAt, int kind, List<String>... tags) {
    return NostrEvent.of(Ev.id(n), pubkey, createdAt, kind, List.of(tags), "content " + n, "c".repeat(128));
  }

  /** Ids whose order follows n (as the store tests' Ev). */
  private static final class Ev {
    static String id(long n) {
      return String.format("%064x", n);
    }
  }

  private static <T> T await(Future<T> f) throws Exception {
    return TestMysqlServer.await(f);
  }
}
