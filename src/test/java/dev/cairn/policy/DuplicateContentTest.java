package dev.cairn.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.config.PolicyConfig;
import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DuplicateContentTest {
  private static final long MINUTE = 60_000_000_000L;
  private static final EventSigner A = EventSigner.random();
  private static final EventSigner B = EventSigner.random();

  private static DuplicateContent rule(PolicyConfig.Scope scope, Set<Integer> kinds, int minLength, int maxEntries) {
    return new DuplicateContent(new PolicyConfig.Duplicates(Duration.ofMinutes(10), scope, kinds, minLength, maxEntries));
  }

  private static NostrEvent note(EventSigner s, String content) {
    return s.sign(System.currentTimeMillis() / 1000, 1, List.of(List.of("n", Long.toString(System.nanoTime()))), content);
  }

  @Test
  void sameAuthorSameContentWithinTheWindowIsRefused() {
    DuplicateContent d = rule(PolicyConfig.Scope.PUBKEY, Set.of(1), 0, 1000);
    assertNull(d.check(note(A, "Hello  world"), 0));
    Verdict v = d.check(note(A, "hello world "), MINUTE);
    assertNotNull(v, "case and white space do not make content new");
    assertEquals("duplicate_content", v.rule());
    assertTrue(v.message().startsWith("blocked: duplicate content"), v.message());
    assertNull(d.check(note(B, "hello world"), MINUTE), "scope pubkey: another author may say it");
    assertNull(d.check(note(A, "hello world"), 11 * MINUTE), "after the window it is new again");
  }

  @Test
  void theSameEventAgainIsLeftToStorage() {
    DuplicateContent d = rule(PolicyConfig.Scope.PUBKEY, Set.of(), 0, 1000);
    NostrEvent e = note(A, "once");
    assertNull(d.check(e, 0));
    assertNull(d.check(e, 1), "a retry of the same event is not a duplicate of its content");
  }

  @Test
  void globalScopeComparesEveryonesContent() {
    DuplicateContent d = rule(PolicyConfig.Scope.GLOBAL, Set.of(), 0, 1000);
    assertNull(d.check(note(A, "copy pasta"), 0));
    assertNotNull(d.check(note(B, "COPY pasta"), 1));
  }

  @Test
  void kindsAndMinimumLengthNarrowTheRule() {
    DuplicateContent d = rule(PolicyConfig.Scope.PUBKEY, Set.of(1), 5, 1000);
    NostrEvent like1 = A.sign(1, 7, List.of(), "+");
    NostrEvent like2 = A.sign(2, 7, List.of(), "+");
    assertNull(d.check(like1, 0));
    assertNull(d.check(like2, 0), "kind 7 is not in kinds");
    assertNull(d.check(note(A, "gm"), 0));
    assertNull(d.check(note(A, "gm"), 0), "shorter than min_length");
  }

  @Test
  void memoryIsBounded() {
    DuplicateContent d = rule(PolicyConfig.Scope.PUBKEY, Set.of(), 0, 3);
    for (int i = 0; i < 10; i++) {
      assertNull(d.check(note(A, "message " + i), i));
    }
    assertEquals(3, d.size());
    assertNotNull(d.check(note(A, "message 9"), 20), "the newest are remembered");
    assertNull(d.check(note(A, "message 0"), 21), "the oldest were forgotten");
  }

  @Test
  void expiredEntriesAreDropped() {
    DuplicateContent d = rule(PolicyConfig.Scope.PUBKEY, Set.of(), 0, 1000);
    for (int i = 0; i < 5; i++) {
      d.check(note(A, "old " + i), 0);
    }
    d.check(note(A, "new"), 11 * MINUTE);
    assertEquals(1, d.size());
  }
}
