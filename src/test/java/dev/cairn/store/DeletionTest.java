package dev.cairn.store;

import static dev.cairn.store.Ev.ALICE;
import static dev.cairn.store.Ev.BOB;
import static dev.cairn.store.Ev.ev;
import static dev.cairn.store.Ev.id;
import static dev.cairn.store.Ev.tag;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeletionTest extends StoreTestBase {

  @Test
  void eTagDeletesAuthorsEventAndIsStoredItself() {
    PersistResult.Stored target = stored(ev(1, ALICE, 100, 1));
    PersistResult.Stored del = stored(ev(2, ALICE, 200, 5, tag("e", id(1))));
    assertEquals(List.of(new Removal(id(1), 1, ALICE, target.seq(), RemovalReason.NIP09)),
        del.removed());
    assertFalse(present(id(1)));
    assertTrue(present(id(2)));
  }

  @Test
  void eTagByAnotherPubkeyHasNoEffect() {
    stored(ev(1, ALICE, 100, 1));
    PersistResult.Stored del = stored(ev(2, BOB, 200, 5, tag("e", id(1))));
    assertTrue(del.removed().isEmpty());
    assertTrue(present(id(1)));
  }

  @Test
  void laterCopyOfDeletedEventIsBlocked() {
    stored(ev(1, ALICE, 100, 1));
    stored(ev(2, ALICE, 200, 5, tag("e", id(1))));
    assertRejected("blocked: deleted by its author", put(ev(1, ALICE, 100, 1)));
    assertFalse(present(id(1)));
  }

  @Test
  void deletionBeforeTargetArrivesBlocksItOnlyForTheDeleter() {
    stored(ev(2, ALICE, 200, 5, tag("e", id(1)), tag("e", id(3))));
    assertRejected(SqliteTenantStore.BLOCKED_DELETED, put(ev(1, ALICE, 100, 1)));
    // id 3 turns out to be Bob's: Alice's tombstone has no effect on it
    stored(ev(3, BOB, 100, 1));
    assertTrue(present(id(3)));
  }

  @Test
  void tombstoneByOtherPubkeyDoesNotBlock() {
    stored(ev(1, ALICE, 100, 1));
    stored(ev(2, BOB, 200, 5, tag("e", id(1))));
    // Alice's event survives and a Bob tombstone does not block anything of Alice
    stored(ev(3, BOB, 201, 5, tag("e", id(4))));
    stored(ev(4, ALICE, 50, 1));
    assertTrue(present(id(1)));
    assertTrue(present(id(4)));
  }

  @Test
  void deletionOfDeletionHasNoEffect() {
    stored(ev(1, ALICE, 100, 1));
    stored(ev(2, ALICE, 200, 5, tag("e", id(1))));
    PersistResult.Stored d2 = stored(ev(3, ALICE, 300, 5, tag("e", id(2))));
    assertTrue(d2.removed().isEmpty());
    assertTrue(present(id(2)));
    // and a kind 5 whose id is tombstoned is still accepted
    stored(ev(4, ALICE, 400, 5, tag("e", id(9))));
    stored(ev(9, ALICE, 401, 5));
    assertTrue(present(id(9)));
  }

  @Test
  void aTagRemovesVersionsUpToItsCreatedAt() {
    PersistResult.Stored v1 = stored(ev(1, ALICE, 100, 30023, tag("d", "x")));
    stored(ev(2, ALICE, 100, 30023, tag("d", "y")));
    PersistResult.Stored del =
        stored(ev(3, ALICE, 150, 5, tag("a", "30023:" + ALICE + ":x")));
    assertEquals(List.of(new Removal(id(1), 30023, ALICE, v1.seq(), RemovalReason.NIP09)),
        del.removed());
    assertFalse(present(id(1)));
    assertTrue(present(id(2)));
    // later copies with created_at <= 150 are refused, newer versions accepted
    assertRejected(SqliteTenantStore.BLOCKED_DELETED, put(ev(4, ALICE, 150, 30023, tag("d", "x"))));
    assertRejected(SqliteTenantStore.BLOCKED_DELETED, put(ev(1, ALICE, 100, 30023, tag("d", "x"))));
    stored(ev(5, ALICE, 151, 30023, tag("d", "x")));
    assertTrue(present(id(5)));
  }

  @Test
  void aTagDoesNotRemoveNewerVersion() {
    stored(ev(1, ALICE, 300, 30023, tag("d", "x")));
    PersistResult.Stored del =
        stored(ev(2, ALICE, 200, 5, tag("a", "30023:" + ALICE + ":x")));
    assertTrue(del.removed().isEmpty());
    assertTrue(present(id(1)));
  }

  @Test
  void aTagForReplaceableUsesEmptyD() {
    stored(ev(1, ALICE, 100, 0));
    PersistResult.Stored del = stored(ev(2, ALICE, 200, 5, tag("a", "0:" + ALICE + ":")));
    assertEquals(1, del.removed().size());
    assertFalse(present(id(1)));
    assertRejected(SqliteTenantStore.BLOCKED_DELETED, put(ev(3, ALICE, 200, 0)));
    stored(ev(4, ALICE, 201, 0));
  }

  @Test
  void aTagOfAnotherPubkeyHasNoEffect() {
    stored(ev(1, ALICE, 100, 30023, tag("d", "x")));
    PersistResult.Stored del = stored(ev(2, BOB, 200, 5, tag("a", "30023:" + ALICE + ":x")));
    assertTrue(del.removed().isEmpty());
    assertTrue(present(id(1)));
    // and no tombstone was recorded for Alice's address
    stored(ev(3, ALICE, 150, 30023, tag("d", "x")));
    assertTrue(present(id(3)));
  }

  @Test
  void newerAddressDeletionRaisesTheTombstone() {
    stored(ev(1, ALICE, 100, 5, tag("a", "30000:" + ALICE + ":k")));
    stored(ev(2, ALICE, 300, 5, tag("a", "30000:" + ALICE + ":k")));
    stored(ev(3, ALICE, 200, 5, tag("a", "30000:" + ALICE + ":k"))); // older: must not lower it
    assertRejected(SqliteTenantStore.BLOCKED_DELETED, put(ev(4, ALICE, 250, 30000, tag("d", "k"))));
    stored(ev(5, ALICE, 301, 30000, tag("d", "k")));
  }

  @Test
  void aBatchFindsItsTombstonesAndDuplicatesAmongAllItsKeys() {
    // A d value with what a JSON array of keys must escape (the batch lookups pass keys that way) and a newline,
    // the separator of a tombstone key (WriteSnapshot.splitTombstoneKey).
    String d = "we\"ird\\ d\n\u0001 \u2615:x";
    stored(ev(1, ALICE, 100, 30023, tag("d", d)));
    for (int i = 10; i < 60; i++) {
      stored(ev(i, ALICE, 100 + i, 1));
    }
    stored(ev(2, ALICE, 200, 5, tag("e", id(20)), tag("e", id(30)), tag("a", "30023:" + ALICE + ":" + d)));
    assertFalse(present(id(1)));
    List<NostrEvent> batch = new ArrayList<>();
    for (int i = 100; i < 400; i++) {
      batch.add(ev(i, BOB, 1000 + i, 1, tag("p", ALICE)));
    }
    batch.add(120, ev(20, ALICE, 120, 1)); // deleted: blocked
    batch.add(200, ev(40, ALICE, 140, 1)); // stored: a duplicate
    batch.add(250, ev(3, ALICE, 150, 30023, tag("d", d))); // an older version of the deleted address
    batch.add(ev(30, ALICE, 130, 1)); // deleted: blocked
    List<PersistResult> results = store.persistBatch(batch, NOW);
    assertEquals(batch.size(), results.size());
    for (int i = 0; i < batch.size(); i++) {
      String id = batch.get(i).id();
      PersistResult r = results.get(i);
      if (id.equals(id(20)) || id.equals(id(30)) || id.equals(id(3))) {
        assertEquals(new PersistResult.Rejected(SqliteTenantStore.BLOCKED_DELETED), r, id);
      } else if (id.equals(id(40))) {
        assertTrue(r instanceof PersistResult.Duplicate, id + ": " + r);
      } else {
        assertTrue(r instanceof PersistResult.Stored, id + ": " + r);
      }
    }
    assertFalse(present(id(3)));
    assertTrue(present(id(399)));
  }

  @Test
  void malformedTagsAreIgnored() {
    stored(ev(1, ALICE, 100, 1));
    PersistResult.Stored del = stored(ev(2, ALICE, 200, 5, tag("e"), tag("a", "x:y"),
        tag("a", "1:" + ALICE + ":"), tag("a", "notakind")));
    assertTrue(del.removed().isEmpty());
    assertTrue(present(id(1)));
  }
}
