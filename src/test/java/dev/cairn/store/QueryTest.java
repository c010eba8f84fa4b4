package dev.cairn.store;

import static dev.cairn.store.Ev.ALICE;
import static dev.cairn.store.Ev.BOB;
import static dev.cairn.store.Ev.ev;
import static dev.cairn.store.Ev.id;
import static dev.cairn.store.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class QueryTest extends StoreTestBase {

  private long count(Filter... filters) {
    return store.count(List.of(filters), Long.MAX_VALUE, NOW);
  }

  @Test
  void orderedNewestFirstTiesByLowestId() {
    stored(ev(5, ALICE, 100, 1));
    stored(ev(3, ALICE, 200, 1));
    stored(ev(9, ALICE, 100, 1));
    stored(ev(1, ALICE, 100, 1));
    stored(ev(7, ALICE, 50, 1));
    assertEquals(List.of(id(3), id(1), id(5), id(9), id(7)), ids(Ev.all()));
  }

  @Test
  void aStoredRowInAnotherJsonFormIsReadByParsingIt() throws Exception {
    stored(ev(5, ALICE, 100, 1));
    stored(ev(3, ALICE, 200, 1));
    stored(ev(9, ALICE, 150, 1));
    // the id and created_at of a row are read from its JSON where the store writes them; JSON written
    // otherwise (an older version, a restore) must be parsed instead, never misread
    String other = "{ \"kind\": 1, \"created_at\": 150, \"id\": \"" + id(9) + "\", \"pubkey\": \"" + ALICE
        + "\", \"tags\": [], \"content\": \"moved\", \"sig\": \"" + "00".repeat(64) + "\" }";
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("tenants/t.db"));
         java.sql.PreparedStatement ps = c.prepareStatement("UPDATE events SET json = ? WHERE id = unhex(?)")) {
      ps.setBytes(1, other.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      ps.setString(2, id(9));
      assertEquals(1, ps.executeUpdate());
    }
    List<StoredEvent> all = q(Ev.all());
    assertEquals(List.of(id(3), id(9), id(5)), all.stream().map(StoredEvent::id).toList());
    assertEquals(List.of(200L, 150L, 100L), all.stream().map(StoredEvent::createdAt).toList());
    assertEquals(other, new String(all.get(1).json(), java.nio.charset.StandardCharsets.UTF_8));
    assertEquals(List.of(id(5), id(3), id(9)), store.range(1, 4, 10).stream().map(StoredEvent::id).toList());
  }

  @Test
  void limitDefaultMaxAndZero() {
    List<NostrEvent> batch = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      batch.add(ev(i, ALICE, 1000 + i, 1));
    }
    store.persistBatch(batch, NOW);
    // explicit limit: the newest n
    assertEquals(List.of(id(20), id(19), id(18)), ids(Ev.limit(3)));
    // absent limit: default
    assertEquals(7, store.query(List.of(Ev.all()), Long.MAX_VALUE, 7, 10, NOW).size());
    // limit above max: clamped
    assertEquals(10, store.query(List.of(Ev.limit(15)), Long.MAX_VALUE, 7, 10, NOW).size());
    // default above max: clamped too
    assertEquals(10, store.query(List.of(Ev.all()), Long.MAX_VALUE, 50, 10, NOW).size());
    // limit 0: nothing, but count ignores limits
    assertTrue(ids(Ev.limit(0)).isEmpty());
    assertEquals(20, count(Ev.limit(0)));
    assertEquals(20, count(Ev.limit(3)));
  }

  @Test
  void sinceUntilInclusive() {
    for (int i = 1; i <= 5; i++) {
      stored(ev(i, ALICE, i * 10, 1));
    }
    assertEquals(List.of(id(4), id(3), id(2)), ids(Ev.range(20L, 40L)));
    assertEquals(List.of(id(5), id(4)), ids(Ev.range(40L, null)));
    assertEquals(List.of(id(2), id(1)), ids(Ev.range(null, 20L)));
    assertEquals(List.of(id(3)), ids(Ev.range(30L, 30L)));
    assertTrue(ids(Ev.range(31L, 30L)).isEmpty());
    assertEquals(3, count(Ev.range(20L, 40L)));
  }

  @Test
  void seqBelowExcludesLaterRows() {
    long s1 = stored(ev(1, ALICE, 100, 1)).seq();
    long s2 = stored(ev(2, ALICE, 50, 1)).seq();
    stored(ev(3, ALICE, 200, 1));
    List<StoredEvent> r = store.query(List.of(Ev.all()), s2, 500, 5000, NOW);
    assertEquals(List.of(id(1)), r.stream().map(StoredEvent::id).toList());
    assertEquals(s1, r.get(0).seq());
    assertEquals(2, store.query(List.of(Ev.all()), s2 + 1, 500, 5000, NOW).size());
    assertEquals(1, store.count(List.of(Ev.all()), s2, NOW));
    assertTrue(store.query(List.of(Ev.all()), s1, 500, 5000, NOW).isEmpty());
  }

  @Test
  void idsAuthorsKinds() {
    stored(ev(1, ALICE, 100, 1));
    stored(ev(2, BOB, 101, 1));
    stored(ev(3, ALICE, 102, 7));
    stored(ev(4, BOB, 103, 30023, tag("d", "z")));
    assertEquals(List.of(id(3), id(1)), ids(Ev.ids(id(1), id(3), id(99))));
    assertEquals(List.of(id(3), id(1)), ids(Ev.authors(ALICE)));
    assertEquals(List.of(id(4), id(2)), ids(Ev.authors(BOB, "f".repeat(64))));
    assertEquals(List.of(id(4), id(3)), ids(Ev.kinds(7, 30023)));
    Filter combined = new Filter(null, Set.of(ALICE), Set.of(1), null, null, null, null, null);
    assertEquals(List.of(id(1)), ids(combined));
    assertEquals(1, count(combined));
  }

  @Test
  void emptySetsAndSearchMatchNothing() {
    stored(ev(1, ALICE, 100, 1, tag("t", "x")));
    assertTrue(ids(new Filter(Set.of(), null, null, null, null, null, null, null)).isEmpty());
    assertTrue(ids(new Filter(null, Set.of(), null, null, null, null, null, null)).isEmpty());
    assertTrue(ids(new Filter(null, null, Set.of(), null, null, null, null, null)).isEmpty());
    assertTrue(ids(new Filter(null, null, null, Map.of('t', Set.of()), null, null, null, null)).isEmpty());
    Filter search = new Filter(null, null, null, null, null, null, null, "content");
    assertTrue(ids(search).isEmpty());
    assertEquals(0, count(search));
    assertEquals(0, count(new Filter(null, Set.of(), null, null, null, null, null, null)));
    assertEquals(1, count(Ev.all()));
  }

  @Test
  void singleLetterTagFilters() {
    stored(ev(1, ALICE, 100, 1, tag("t", "nostr"), tag("p", BOB)));
    stored(ev(2, ALICE, 101, 1, tag("t", "java"), tag("t", "nostr")));
    stored(ev(3, ALICE, 102, 1, tag("T", "nostr"), tag("tt", "nostr"), tag("t")));
    stored(ev(4, BOB, 103, 1, tag("e", id(1), "wss://relay", "reply")));
    assertEquals(List.of(id(2), id(1)), ids(Ev.tagFilter('t', "nostr")));
    assertEquals(List.of(id(2)), ids(Ev.tagFilter('t', "java")));
    assertEquals(List.of(id(2), id(1)), ids(Ev.tagFilter('t', "java", "nostr")));
    assertEquals(List.of(id(3)), ids(Ev.tagFilter('T', "nostr")));
    assertEquals(List.of(id(4)), ids(Ev.tagFilter('e', id(1))));
    assertEquals(List.of(id(1)), ids(Ev.tagFilter('p', BOB)));
    // two tag conditions are ANDed
    Filter both = new Filter(null, null, null,
        Map.of('t', Set.of("nostr"), 'p', Set.of(BOB)), null, null, null, null);
    assertEquals(List.of(id(1)), ids(both));
    assertEquals(2, count(Ev.tagFilter('t', "nostr")));
    // tag rows follow their event out of the store
    stored(ev(5, ALICE, 200, 5, tag("e", id(1))));
    assertEquals(List.of(id(2)), ids(Ev.tagFilter('t', "nostr")));
  }

  @Test
  void multipleFiltersUnionDedupedAndOrdered() {
    stored(ev(1, ALICE, 100, 1));
    stored(ev(2, BOB, 300, 1));
    stored(ev(3, ALICE, 200, 7));
    stored(ev(4, BOB, 200, 7));
    // per-filter limits, union dedup by id, merged newest first, ties lowest id
    Filter alice = new Filter(null, Set.of(ALICE), null, null, null, null, 1, null);
    Filter kind7 = new Filter(null, null, Set.of(7), null, null, null, null, null);
    assertEquals(List.of(id(3), id(4)), ids(alice, kind7));
    assertEquals(List.of(id(2), id(3), id(4), id(1)), ids(Ev.authors(BOB), Ev.authors(ALICE), kind7));
    assertEquals(4, count(Ev.authors(BOB), Ev.authors(ALICE), kind7));
    assertEquals(3, count(Ev.authors(ALICE), kind7));
    // a filter that matches nothing does not hide the others
    assertEquals(List.of(id(3), id(4)), ids(kind7, Ev.limit(0), Ev.ids()));
  }

  @Test
  void expiredRowsHiddenThenPurged() {
    long exp = NOW + 100;
    PersistResult.Stored s = stored(ev(1, ALICE, 100, 1, tag("expiration", String.valueOf(exp)), tag("t", "x")));
    stored(ev(2, ALICE, 101, 1, tag("expiration", String.valueOf(exp + 50))));
    stored(ev(3, ALICE, 102, 1));
    assertEquals(3, count(Ev.all()));
    // at exp the row is expired (expiration <= now)
    assertEquals(List.of(id(2), id(3)).size(),
        store.query(List.of(Ev.all()), Long.MAX_VALUE, 500, 5000, exp).size());
    assertTrue(store.query(List.of(Ev.tagFilter('t', "x")), Long.MAX_VALUE, 500, 5000, exp).isEmpty());
    assertEquals(2, store.count(List.of(Ev.all()), Long.MAX_VALUE, exp));
    assertEquals(3, store.count(List.of(Ev.all()), Long.MAX_VALUE, exp - 1));
    // purge
    assertTrue(store.purgeExpired(exp - 1, 100).isEmpty());
    List<Removal> purged = store.purgeExpired(exp, 100);
    assertEquals(List.of(new Removal(id(1), 1, ALICE, s.seq(), RemovalReason.EXPIRED)), purged);
    assertEquals(3 - 1, count(Ev.all())); // gone for good, even at an earlier "now"
    assertEquals(1, store.purgeExpired(exp + 1000, 100).size());
    assertEquals(List.of(id(3)), ids(Ev.all()));
  }

  @Test
  void purgeRespectsMaxRows() {
    List<NostrEvent> batch = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      batch.add(ev(i, ALICE, 100, 1, tag("expiration", String.valueOf(NOW + i))));
    }
    store.persistBatch(batch, NOW);
    List<Removal> first = store.purgeExpired(NOW + 10, 2);
    assertEquals(List.of(id(1), id(2)), first.stream().map(Removal::id).toList());
    assertEquals(3, store.purgeExpired(NOW + 10, 10).size());
    assertEquals(0, store.count(List.of(Ev.all()), Long.MAX_VALUE, 0));
  }

  @Test
  void concurrentQueriesWhileWriting() throws Exception {
    List<Thread> threads = new ArrayList<>();
    List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    Thread writer = new Thread(() -> {
      for (int b = 0; b < 20; b++) {
        List<NostrEvent> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          batch.add(ev(b * 100L + i + 1, ALICE, 1000 + i, 1, tag("t", "x")));
        }
        store.persistBatch(batch, NOW);
      }
    });
    threads.add(writer);
    for (int r = 0; r < 4; r++) {
      threads.add(new Thread(() -> {
        try {
          for (int i = 0; i < 50; i++) {
            long hw = store.highWaterSeq();
            long n = store.count(List.of(Ev.tagFilter('t', "x")), hw + 1, NOW);
            assertEquals(hw, n); // every committed seq <= high water is visible
            List<StoredEvent> got = store.query(List.of(Ev.limit(10)), hw + 1, 500, 5000, NOW);
            for (StoredEvent e : got) {
              assertTrue(e.seq() <= hw);
            }
          }
        } catch (Throwable t) {
          errors.add(t);
        }
      }));
    }
    for (Thread t : threads) {
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(errors.isEmpty(), errors.toString());
    assertEquals(1000, count(Ev.all()));
  }
}
