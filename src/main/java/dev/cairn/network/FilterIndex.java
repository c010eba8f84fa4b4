package dev.cairn.network;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The live filters of one tenant, indexed so that an event is checked only against filters that
 * could match it. Each filter is filed under its most selective field (ids, then authors, then its
 * first tag, then kinds; a filter with none of them is a catch-all); a candidate is then checked in
 * full with {@link Filter#matches}. Owned by network-manager's registry, single-threaded.
 */
final class FilterIndex {
  /** One filter of one subscription of one connection. */
  record Entry(long connId, Subscription sub, Filter filter) {}

  private final Map<String, List<Entry>> byId = new HashMap<>();
  private final Map<String, List<Entry>> byAuthor = new HashMap<>();
  private final Map<String, List<Entry>> byTag = new HashMap<>();
  private final Map<Integer, List<Entry>> byKind = new HashMap<>();
  private final List<Entry> catchAll = new ArrayList<>();
  private int size;

  int size() {
    return size;
  }

  void add(long connId, Subscription sub) {
    for (Filter f : sub.filters) {
      if (f.search() != null) {
        continue; // answered by the search index, never live-matched as "everything"
      }
      Entry e = new Entry(connId, sub, f);
      file(e, true);
      size++;
    }
  }

  void remove(long connId, Subscription sub) {
    for (Filter f : sub.filters) {
      if (f.search() != null) {
        continue;
      }
      file(new Entry(connId, sub, f), false);
      size--;
    }
  }

  /** Every entry whose filter matches the event, each once. */
  void candidates(NostrEvent event, Consumer<Entry> out) {
    scan(byId.get(event.id()), event, out);
    scan(byAuthor.get(event.pubkey()), event, out);
    scan(byKind.get(event.kind()), event, out);
    for (List<String> tag : event.tags()) {
      if (tag.size() >= 2 && tag.get(0).length() == 1) {
        scan(byTag.get(tagKey(tag.get(0).charAt(0), tag.get(1))), event, out);
      }
    }
    scan(catchAll, event, out);
  }

  private static void scan(List<Entry> entries, NostrEvent event, Consumer<Entry> out) {
    if (entries == null) {
      return;
    }
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      if (e.filter().matches(event)) {
        out.accept(e);
      }
    }
  }

  /**
   * Files (or unfiles) an entry under each value of its most selective field. An event can reach the
   * same entry through two values of that field only when it carries both (e.g. two matching tag
   * values); the registry dedups per subscription.
   */
  private void file(Entry e, boolean add) {
    Filter f = e.filter();
    if (f.ids() != null) {
      f.ids().forEach(id -> put(byId, id, e, add));
    } else if (f.authors() != null) {
      f.authors().forEach(a -> put(byAuthor, a, e, add));
    } else if (!f.tags().isEmpty()) {
      Map.Entry<Character, java.util.Set<String>> first = f.tags().entrySet().iterator().next();
      first.getValue().forEach(v -> put(byTag, tagKey(first.getKey(), v), e, add));
    } else if (f.kinds() != null) {
      f.kinds().forEach(k -> put(byKind, k, e, add));
    } else if (add) {
      catchAll.add(e);
    } else {
      catchAll.remove(e);
    }
  }

  private static <K> void put(Map<K, List<Entry>> map, K key, Entry e, boolean add) {
    if (add) {
      map.computeIfAbsent(key, k -> new ArrayList<>(2)).add(e);
      return;
    }
    List<Entry> list = map.get(key);
    if (list != null) {
      list.remove(e);
      if (list.isEmpty()) {
        map.remove(key);
      }
    }
  }

  private static String tagKey(char name, String value) {
    return name + value;
  }
}
