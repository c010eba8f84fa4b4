package dev.cairn.nostr;

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
}
