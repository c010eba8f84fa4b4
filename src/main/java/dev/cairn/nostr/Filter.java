package dev.cairn.nostr;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One NIP-01 filter. A null set means "field absent" (matches everything); an empty set matches
 * nothing. {@code tags} maps a single-letter tag name to the values of its {@code #x} field.
 * {@code limit} is null when absent. {@code search} is the NIP-50 query, null when absent.
 */
public record Filter(
    Set<String> ids,
    Set<String> authors,
    Set<Integer> kinds,
    Map<Character, Set<String>> tags,
    Long since,
    Long until,
    Integer limit,
    String search) {

  public Filter {
    ids = ids == null ? null : Set.copyOf(ids);
    authors = authors == null ? null : Set.copyOf(authors);
    kinds = kinds == null ? null : Set.copyOf(kinds);
    tags = tags == null ? Map.of() : Map.copyOf(tags);
  }

  /**
   * True when {@code e} satisfies every present condition. {@code limit} and {@code search} are not
   * evaluated here: limit applies to stored queries, and a search filter is answered by the search
   * index. Runs for every event against every live subscription, so the cheapest checks go first
   * and nothing is allocated beyond the map iteration for tag conditions.
   */
  public boolean matches(NostrEvent e) {
    long createdAt = e.createdAt();
    if (since != null && createdAt < since) {
      return false;
    }
    if (until != null && createdAt > until) {
      return false;
    }
    if (kinds != null && !kinds.contains(e.kind())) {
      return false;
    }
    if (authors != null && !authors.contains(e.pubkey())) {
      return false;
    }
    if (ids != null && !ids.contains(e.id())) {
      return false;
    }
    if (!tags.isEmpty()) {
      for (Map.Entry<Character, Set<String>> condition : tags.entrySet()) {
        if (!hasTag(e.tags(), condition.getKey(), condition.getValue())) {
          return false;
        }
      }
    }
    return true;
  }

  /** Some tag named {@code name} has its first value (index 1) in {@code values}. */
  private static boolean hasTag(List<List<String>> eventTags, char name, Set<String> values) {
    if (values.isEmpty()) {
      return false;
    }
    for (int i = 0, n = eventTags.size(); i < n; i++) {
      List<String> tag = eventTags.get(i);
      if (tag.size() >= 2) {
        String tagName = tag.get(0);
        if (tagName.length() == 1 && tagName.charAt(0) == name && values.contains(tag.get(1))) {
          return true;
        }
      }
    }
    return false;
  }
}
