package dev.cairn.policy;

import dev.cairn.config.PolicyConfig;
import dev.cairn.nostr.NostrEvent;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * Blocked event ids, authors, words and patterns of one tenant. Immutable: a reload builds a new
 * one. Regexes were compiled when the config was read; each gets a budget of characters it may
 * read per event ({@link BudgetedChars}), and content that exhausts it is refused, so a costly
 * pattern can neither stall the policy node nor be used to slip content past it.
 */
final class Blacklist {
  private static final Logger LOG = Logger.getLogger(Blacklist.class.getName());
  /** Characters a pattern may read per event: generous for a sane pattern, small for the event loop. */
  static final long MIN_REGEX_BUDGET = 200_000;
  static final int REGEX_BUDGET_PER_CHAR = 50;

  private final Set<String> pubkeys;
  private final Set<String> eventIds;
  private final Words words;
  private final List<Pattern> regexes;

  Blacklist(PolicyConfig.TenantPolicy p) {
    this(p.blockPubkeys(), p.blockEventIds(), p.blockWords(), p.blockRegexes());
  }

  Blacklist(Set<String> pubkeys, Set<String> eventIds, List<String> words, List<Pattern> regexes) {
    this.pubkeys = Set.copyOf(pubkeys);
    this.eventIds = Set.copyOf(eventIds);
    this.words = new Words(words);
    this.regexes = List.copyOf(regexes);
  }

  /** The event's id or author is blocked. */
  Verdict author(NostrEvent e) {
    if (eventIds.contains(e.id())) {
      return Verdict.reject("blocked_event_id", "blocked: this event is not accepted here");
    }
    if (pubkeys.contains(e.pubkey())) {
      return Verdict.reject("blocked_pubkey", "blocked: this pubkey may not publish here");
    }
    return null;
  }

  /** The event's content holds a blocked word or matches a blocked pattern. */
  Verdict content(NostrEvent e) {
    String content = e.content();
    if (words.find(content) != null) {
      return Verdict.reject("blocked_word", "blocked: content contains a blocked word");
    }
    if (regexes.isEmpty()) {
      return null;
    }
    long budget = Math.max(MIN_REGEX_BUDGET, (long) REGEX_BUDGET_PER_CHAR * content.length());
    for (Pattern p : regexes) {
      try {
        if (p.matcher(new BudgetedChars(content, budget)).find()) {
          return Verdict.reject("blocked_regex", "blocked: content matches a blocked pattern");
        }
      } catch (BudgetedChars.Exhausted | StackOverflowError x) {
        LOG.warning("block_regexes: \"" + p.pattern() + "\" read more than " + budget + " characters of event "
            + e.id() + " (" + content.length() + " characters); the event is refused. Simplify the pattern.");
        return Verdict.reject("regex_budget", "blocked: content is too costly to check against this relay's patterns");
      }
    }
    return null;
  }
}
