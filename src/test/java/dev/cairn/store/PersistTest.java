package dev.cairn.store;

import static dev.cairn.store.Ev.ALICE;
import static dev.cairn.store.Ev.BOB;
import static dev.cairn.store.Ev.ev;
import static dev.cairn.store.Ev.id;
import static dev.cairn.store.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PersistTest extends StoreTestBase {

  @Test
  void storesRegularEventWithIncreasingSeqAndHighWater() {
    assertEquals(0, store.highWaterSeq());
    PersistResult.Stored a = stored(ev(1, ALICE, 100, 1));
    PersistResult.Stored b = stored(ev(2, ALICE, 100, 1));
    assertTrue(b.seq() > a.seq());
    assertEquals(b.seq(), store.highWaterSeq());
    assertTrue(a.removed().isEmpty());
    StoredEvent got = q(Ev.ids(id(1))).get(0);
    assertArrayEquals(ev(1, ALICE, 100, 1).json(), got.json());
    assertEquals(a.seq(), got.seq());
    assertEquals(100, got.createdAt());
  }

  @Test
  void sameIdIsDuplicate() {
    stored(ev(1, ALICE, 100, 1));
    long hw = store.highWaterSeq();
    assertDuplicate("duplicate: already have this event", put(ev(1, ALICE, 100, 1)));
    assertEquals(hw, store.highWaterSeq());
    assertEquals(1, q(Ev.all()).size());
  }

  @Test
  void ephemeralIsRejected() {
    assertRejected("invalid: ephemeral events are not stored", put(ev(1, ALICE, 100, 20001)));
    assertRejected("invalid: ephemeral events are not stored", put(ev(2, ALICE, 100, 29999)));
    assertTrue(q(Ev.all()).isEmpty());
    assertEquals(0, store.highWaterSeq());
  }

  @Test
  void alreadyExpiredIsRejectedOnWrite() {
    assertRejected(SqliteTenantStore.INVALID_EXPIRED,
        put(ev(1, ALICE, 100, 1, tag("expiration", String.valueOf(NOW)))));
    assertInstanceOf(PersistResult.Stored.class,
        put(ev(2, ALICE, 100, 1, tag("expiration", String.valueOf(NOW + 1)))));
  }

  @Test
  void replaceableNewerReplacesOlder() {
    PersistResult.Stored old = stored(ev(1, ALICE, 100, 0));
    PersistResult.Stored neu = stored(ev(2, ALICE, 200, 0));
    assertEquals(List.of(new Removal(id(1), 0, ALICE, old.seq(), RemovalReason.REPLACED)),
        neu.removed());
    assertEquals(List.of(id(2)), ids(Ev.kinds(0)));
    // other pubkey and other kind are independent
    stored(ev(3, BOB, 50, 0));
    stored(ev(4, ALICE, 10, 3));
    stored(ev(5, ALICE, 10, 10002));
    assertEquals(List.of(id(2), id(3)), ids(Ev.kinds(0)));
    assertEquals(4, q(Ev.all()).size());
  }

  @Test
  void replaceableOlderIsDuplicateAndNotWritten() {
    stored(ev(2, ALICE, 200, 10000));
    long hw = store.highWaterSeq();
    assertDuplicate("duplicate: have a newer version of this event", put(ev(1, ALICE, 100, 10000)));
    assertEquals(hw, store.highWaterSeq());
    assertEquals(List.of(id(2)), ids(Ev.all()));
  }

  @Test
  void replaceableTieKeepsLowestId() {
    stored(ev(5, ALICE, 100, 3));
    // higher id, same created_at: loses
    assertDuplicate(SqliteTenantStore.DUPLICATE_OLDER, put(ev(9, ALICE, 100, 3)));
    assertEquals(List.of(id(5)), ids(Ev.all()));
    // lower id, same created_at: wins
    PersistResult.Stored s = stored(ev(2, ALICE, 100, 3));
    assertEquals(id(5), s.removed().get(0).id());
    assertEquals(List.of(id(2)), ids(Ev.all()));
  }

  @Test
  void addressableIsPerDTag() {
    stored(ev(1, ALICE, 100, 30023, tag("d", "post-a")));
    stored(ev(2, ALICE, 100, 30023, tag("d", "post-b")));
    stored(ev(3, ALICE, 100, 30023)); // no d tag = ""
    assertEquals(3, q(Ev.all()).size());
    PersistResult.Stored s = stored(ev(4, ALICE, 200, 30023, tag("d", "post-a")));
    assertEquals(List.of(id(1)), s.removed().stream().map(Removal::id).toList());
    assertDuplicate(SqliteTenantStore.DUPLICATE_OLDER, put(ev(5, ALICE, 50, 30023, tag("d", "post-b"), tag("d", "x"))));
    PersistResult.Stored empty = stored(ev(6, ALICE, 101, 30023, tag("d", "")));
    assertEquals(id(3), empty.removed().get(0).id());
    assertEquals(List.of(id(4), id(6), id(2)), ids(Ev.all()));
    // same d, other pubkey / kind: independent
    stored(ev(7, BOB, 1, 30023, tag("d", "post-a")));
    stored(ev(8, ALICE, 1, 30024, tag("d", "post-a")));
    assertEquals(5, q(Ev.all()).size());
  }

  @Test
  void seqNeverReusedAfterReplacementOrReopen() throws Exception {
    PersistResult.Stored a = stored(ev(1, ALICE, 100, 0));
    PersistResult.Stored b = stored(ev(2, ALICE, 200, 0)); // replaces a, b is the max seq
    PersistResult.Stored c = stored(ev(3, ALICE, 300, 0)); // replaces b (the highest row)
    assertTrue(a.seq() < b.seq() && b.seq() < c.seq());
    // delete the newest row via its author, then reopen: seq keeps growing
    PersistResult.Stored del = stored(ev(4, ALICE, 400, 5, tag("e", id(3))));
    long hw = store.highWaterSeq();
    assertEquals(del.seq(), hw);
    store.close();
    store = SqliteTenantStore.open(dir.resolve("tenants/t.db"), 1);
    assertEquals(hw, store.highWaterSeq());
    PersistResult.Stored d = stored(ev(5, ALICE, 500, 1));
    assertTrue(d.seq() > hw);
    // delete the newest row itself and reopen: still no reuse
    stored(ev(6, ALICE, 600, 5, tag("e", id(5))));
    long hw2 = store.highWaterSeq();
    store.close();
    store = SqliteTenantStore.open(dir.resolve("tenants/t.db"), 1);
    assertTrue(stored(ev(7, ALICE, 700, 1)).seq() > hw2);
  }

  @Test
  void batchIsAppliedInOrderAsIfSequential() {
    List<NostrEvent> batch = List.of(
        ev(10, ALICE, 100, 0),                      // stored
        ev(11, ALICE, 200, 0),                      // replaces 10 within the batch
        ev(12, ALICE, 150, 0),                      // older than 11: duplicate
        ev(10, ALICE, 100, 0),                      // id 10 was replaced: tombstone? no -> newer version
        ev(20, ALICE, 100, 1),                      // regular
        ev(20, ALICE, 100, 1),                      // same id in the same batch: duplicate
        ev(21, ALICE, 101, 5, tag("e", id(20))),    // deletes 20 in the same batch
        ev(20, ALICE, 100, 1),                      // later copy: blocked
        ev(22, ALICE, 100, 20000));                 // ephemeral
    List<PersistResult> r = store.persistBatch(batch, NOW);
    assertEquals(batch.size(), r.size());
    PersistResult.Stored s10 = assertInstanceOf(PersistResult.Stored.class, r.get(0));
    PersistResult.Stored s11 = assertInstanceOf(PersistResult.Stored.class, r.get(1));
    assertEquals(List.of(new Removal(id(10), 0, ALICE, s10.seq(), RemovalReason.REPLACED)), s11.removed());
    assertDuplicate(SqliteTenantStore.DUPLICATE_OLDER, r.get(2));
    assertDuplicate(SqliteTenantStore.DUPLICATE_OLDER, r.get(3));
    PersistResult.Stored s20 = assertInstanceOf(PersistResult.Stored.class, r.get(4));
    assertDuplicate(SqliteTenantStore.DUPLICATE_ID, r.get(5));
    PersistResult.Stored s21 = assertInstanceOf(PersistResult.Stored.class, r.get(6));
    assertEquals(List.of(new Removal(id(20), 1, ALICE, s20.seq(), RemovalReason.NIP09)), s21.removed());
    assertRejected(SqliteTenantStore.BLOCKED_DELETED, r.get(7));
    assertRejected(SqliteTenantStore.INVALID_EPHEMERAL, r.get(8));
    assertTrue(s10.seq() < s11.seq() && s11.seq() < s20.seq() && s20.seq() < s21.seq());
    assertEquals(s21.seq(), store.highWaterSeq());
    assertEquals(List.of(id(11), id(21)), ids(Ev.all()));
  }

  /**
   * An event stored and then replaced or deleted within the same batch leaves no tag-index entry, and
   * every survivor has all of its own, once — checked on the index itself, since a query's join to
   * events would hide a stray entry.
   */
  @Test
  void tagIndexHoldsExactlyTheSurvivorsOfABatch() throws Exception {
    List<NostrEvent> batch = List.of(
        ev(30, ALICE, 100, 0, tag("t", "a")),                   // replaced by 31 in the batch
        ev(31, ALICE, 200, 0, tag("t", "a"), tag("p", BOB)),
        ev(40, ALICE, 100, 1, tag("t", "a")),                   // deleted by 41 in the batch
        ev(41, ALICE, 101, 5, tag("e", id(40))),
        ev(42, ALICE, 102, 1, tag("t", "b"), tag("t", "a"), tag("t", "b"), tag("x"), tag("long", "no")));
    List<PersistResult> r = store.persistBatch(batch, NOW);
    long s31 = assertInstanceOf(PersistResult.Stored.class, r.get(1)).seq();
    long s41 = assertInstanceOf(PersistResult.Stored.class, r.get(3)).seq();
    long s42 = assertInstanceOf(PersistResult.Stored.class, r.get(4)).seq();
    java.util.Set<String> expected = java.util.Set.of(
        TagKey.of("t", "a") + "@" + s31, TagKey.of("p", BOB) + "@" + s31, TagKey.of("e", id(40)) + "@" + s41,
        TagKey.of("t", "b") + "@" + s42, TagKey.of("t", "a") + "@" + s42);
    java.util.Set<String> indexed = new java.util.HashSet<>();
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("tenants/t.db"));
        java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT k, seq FROM tag_index")) {
      while (rs.next()) {
        assertTrue(indexed.add(rs.getLong(1) + "@" + rs.getLong(2)), "one entry per key and event");
      }
    }
    assertEquals(expected, indexed);
    assertEquals(List.of(id(31), id(42)), ids(Ev.tagFilter('t', "a")));
  }

  @Test
  void batchOf1024CommitsFast() {
    // warm up
    store.persistBatch(List.of(ev(1, ALICE, 1, 1)), NOW);
    List<NostrEvent> batch = new ArrayList<>();
    for (int i = 0; i < 1024; i++) {
      batch.add(ev(1000 + i, i % 2 == 0 ? ALICE : BOB, NOW - i, 1,
          tag("t", "tag" + (i % 10)), tag("p", BOB), tag("e", id(i))));
    }
    long t0 = System.nanoTime();
    List<PersistResult> r = store.persistBatch(batch, NOW);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(r.stream().allMatch(x -> x instanceof PersistResult.Stored));
    assertTrue(ms < 1000, "batch of 1024 took " + ms + " ms");
    assertEquals(1025, store.count(List.of(Ev.all()), Long.MAX_VALUE, NOW));
  }

  @Test
  void failedBatchCommitsNothingAndClosedStoreThrows() {
    stored(ev(1, ALICE, 100, 1));
    store.close();
    try {
      store.persistBatch(List.of(ev(2, ALICE, 100, 1)), NOW);
      throw new AssertionError("expected StoreException");
    } catch (StoreException expected) {
      // ok
    }
    store = SqliteTenantStore.open(dir.resolve("tenants/t.db"), 1);
    assertFalse(present(id(2)));
    assertTrue(present(id(1)));
  }
}
