package dev.cairn.store;

import static dev.cairn.store.Ev.ALICE;
import static dev.cairn.store.Ev.BOB;
import static dev.cairn.store.Ev.ev;
import static dev.cairn.store.Ev.id;
import static dev.cairn.store.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.negentropy.NegentropyHex;
import dev.cairn.nostr.negentropy.VectorStorage;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** NIP-77's read: REQ's filter semantics, no default limit, the record cap. */
class SyncItemsTest extends StoreTestBase {

  private Set<String> itemIds(Filter f, int max, long now) {
    SyncItems r = store.syncItems(f, max, now);
    assertTrue(!r.tooMany(), "too many: " + r.matched());
    VectorStorage s = r.items();
    Set<String> out = new HashSet<>();
    byte[] idBuf = new byte[32];
    for (int i = 0; i < s.size(); i++) {
      s.copyId(i, idBuf, 0);
      out.add(NegentropyHex.encode(idBuf));
    }
    assertEquals(out.size(), r.matched());
    return out;
  }

  @Test
  void sameMatchesAsReqWithoutItsDefaultLimit() {
    for (int i = 1; i <= 30; i++) {
      stored(ev(i, i % 2 == 0 ? ALICE : BOB, 100 + i, i % 3 == 0 ? 7 : 1));
    }
    Set<String> all = itemIds(Ev.all(), 100, NOW);
    assertEquals(30, all.size());
    // REQ with default_limit 10 would stop at 10: the sync set is everything
    assertEquals(10, store.query(List.of(Ev.all()), Long.MAX_VALUE, 10, 5000, NOW).size());
    Filter f = new Filter(null, Set.of(ALICE), Set.of(1), null, 105L, 120L, null, null);
    Set<String> req = new HashSet<>();
    store.query(List.of(f), Long.MAX_VALUE, 500, 5000, NOW).forEach(e -> req.add(e.id()));
    assertEquals(req, itemIds(f, 100, NOW));
    assertEquals(3, itemIds(Ev.limit(3), 100, NOW).size());
  }

  @Test
  void explicitLimitTakesTheNewest() {
    for (int i = 1; i <= 5; i++) {
      stored(ev(i, ALICE, 100 + i, 1));
    }
    assertEquals(Set.of(id(5), id(4)), itemIds(Ev.limit(2), 100, NOW));
    assertEquals(Set.of(), itemIds(Ev.limit(0), 100, NOW));
  }

  @Test
  void expiredAndDeletedAreNotInTheSet() {
    stored(ev(1, ALICE, 100, 1, tag("expiration", String.valueOf(NOW + 10))));
    stored(ev(2, ALICE, 101, 1));
    stored(ev(3, ALICE, 102, 1));
    stored(ev(4, ALICE, 103, 5, tag("e", id(3))));
    assertEquals(Set.of(id(1), id(2), id(4)), itemIds(Ev.all(), 100, NOW));
    assertEquals(Set.of(id(2), id(4)), itemIds(Ev.all(), 100, NOW + 10));
  }

  @Test
  void overTheCapOnlyCounts() {
    for (int i = 1; i <= 12; i++) {
      stored(ev(i, ALICE, 100 + i, 1));
    }
    SyncItems r = store.syncItems(Ev.all(), 10, NOW);
    assertTrue(r.tooMany());
    assertEquals(12, r.matched());
    // a limit over the cap counts what the limit would give
    r = store.syncItems(Ev.limit(11), 10, NOW);
    assertTrue(r.tooMany());
    assertEquals(11, r.matched());
    assertEquals(10, store.syncItems(Ev.limit(10), 10, NOW).matched());
  }
}
