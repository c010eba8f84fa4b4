package dev.cairn.store;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Test fixtures: fake but well-formed events (the store does not verify ids or signatures). */
final class Ev {
  static final String ALICE = "a".repeat(64);
  static final String BOB = "b".repeat(64);
  static final String SIG = "c".repeat(128);

  private Ev() {}

  /** A 64-hex id whose order follows {@code n}. */
  static String id(long n) {
    return String.format("%064x", n);
  }

  static List<String> tag(String... parts) {
    return Arrays.asList(parts);
  }

  @SafeVarargs
  static NostrEvent ev(long idNum, String pubkey, long createdAt, int kind, List<String>... tags) {
    return ev(id(idNum), pubkey, createdAt, kind, tags);
  }

  @SafeVarargs
  static NostrEvent ev(String id, String pubkey, long createdAt, int kind, List<String>... tags) {
    List<List<String>> tagList = new ArrayList<>(Arrays.asList(tags));
    String content = "content of " + id.substring(56);
    return NostrEvent.of(id, pubkey, createdAt, kind, tagList, content, SIG);
  }

  /** An empty filter (matches everything). */
  static Filter all() {
    return new Filter(null, null, null, null, null, null, null, null);
  }

  static Filter limit(Integer limit) {
    return new Filter(null, null, null, null, null, null, limit, null);
  }

  static Filter ids(String... ids) {
    return new Filter(Set.of(ids), null, null, null, null, null, null, null);
  }

  static Filter authors(String... authors) {
    return new Filter(null, Set.of(authors), null, null, null, null, null, null);
  }

  static Filter kinds(Integer... kinds) {
    return new Filter(null, null, Set.of(kinds), null, null, null, null, null);
  }

  static Filter range(Long since, Long until) {
    return new Filter(null, null, null, null, since, until, null, null);
  }

  static Filter tagFilter(char name, String... values) {
    return new Filter(null, null, null, Map.of(name, Set.of(values)), null, null, null, null);
  }
}
