package dev.cairn.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class BlacklistTest {
  private static final EventSigner S = EventSigner.random();

  private static NostrEvent note(String content) {
    return S.sign(1, 1, List.of(), content);
  }

  private static String rule(Verdict v) {
    return v == null ? null : v.rule();
  }

  @Test
  void authorsAndEventIds() {
    NostrEvent e = note("x");
    EventSigner other = EventSigner.random();
    assertEquals("blocked_pubkey", rule(new Blacklist(Set.of(S.pubkey()), Set.of(), List.of(), List.of()).author(e)));
    assertEquals("blocked_event_id", rule(new Blacklist(Set.of(), Set.of(e.id()), List.of(), List.of()).author(e)));
    assertNull(new Blacklist(Set.of(other.pubkey()), Set.of(), List.of(), List.of()).author(e));
  }

  @Test
  void wordsMatchWholeWordsCaseInsensitively() {
    Blacklist b = new Blacklist(Set.of(), Set.of(), List.of("Spam", "buy followers", "ÄRGER"), List.of());
    assertEquals("blocked_word", rule(b.content(note("this is SPAM!"))));
    assertEquals("blocked_word", rule(b.content(note("spam"))));
    assertEquals("blocked_word", rule(b.content(note("Buy   followers, cheap"))), "a phrase across spacing");
    assertEquals("blocked_word", rule(b.content(note("so much ärger"))), "non-ASCII case folding");
    assertNull(b.content(note("spammers and spamming are other words")));
    assertNull(b.content(note("buy more followers")));
  }

  @Test
  void regexesAsWritten() {
    Blacklist b = new Blacklist(Set.of(), Set.of(), List.of(),
        List.of(Pattern.compile("(?i)bit\\.ly/[a-z0-9]+"), Pattern.compile("^\\s*$")));
    assertEquals("blocked_regex", rule(b.content(note("go to BIT.LY/abc1"))));
    assertEquals("blocked_regex", rule(b.content(note("   "))));
    assertNull(b.content(note("bit.ly is a domain")));
  }

  @Test
  void catastrophicBacktrackingIsCutOffAndRefused() {
    // exponential in Java 17's engine (unlike ^(a+)+$, which it memoizes): ~10^9 reads without the budget
    Blacklist b = new Blacklist(Set.of(), Set.of(), List.of(), List.of(Pattern.compile("(.*a){15}x")));
    NostrEvent evil = note("a".repeat(60));
    Verdict v = assertTimeoutPreemptively(Duration.ofSeconds(5), () -> b.content(evil));
    assertEquals("regex_budget", rule(v));
    assertEquals(true, v.message().startsWith("blocked:"), v.message());
    assertEquals("blocked_regex", rule(b.content(note("a".repeat(15) + "x"))), "a normal input is still matched");
  }
}
