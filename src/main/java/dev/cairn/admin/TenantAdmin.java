package dev.cairn.admin;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What admins set for one tenant through NIP-86, at one moment: each list as value to reason (in the
 * order added) and the NIP-11 fields they changed. Immutable: a change builds a new one, so the
 * policy node and the listeners read it without locks.
 */
public record TenantAdmin(Map<AdminList, Map<String, String>> lists, Map<InfoField, String> info) {
  public static final TenantAdmin EMPTY = new TenantAdmin(Map.of(), Map.of());

  public TenantAdmin {
    EnumMap<AdminList, Map<String, String>> l = new EnumMap<>(AdminList.class);
    lists.forEach((k, v) -> l.put(k, Collections.unmodifiableMap(new LinkedHashMap<>(v))));
    lists = Collections.unmodifiableMap(l);
    info = info.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(info));
  }

  /** The entries of {@code list}: value to reason ("" when none was given). */
  public Map<String, String> list(AdminList list) {
    return lists.getOrDefault(list, Map.of());
  }

  public boolean contains(AdminList list, String value) {
    return list(list).containsKey(value);
  }

  /** The NIP-11 field as changed by an admin, or {@code fallback} (the config's) when never changed. */
  public String info(InfoField field, String fallback) {
    return info.getOrDefault(field, fallback);
  }

  TenantAdmin with(AdminList list, String value, String reason, boolean present) {
    Map<AdminList, Map<String, String>> l = new EnumMap<>(AdminList.class);
    l.putAll(lists);
    Map<String, String> entries = new LinkedHashMap<>(list(list));
    if (present) {
      entries.put(value, reason == null ? "" : reason);
    } else {
      entries.remove(value);
    }
    l.put(list, entries);
    return new TenantAdmin(l, info);
  }

  TenantAdmin with(InfoField field, String value) {
    Map<InfoField, String> i = new EnumMap<>(InfoField.class);
    i.putAll(info);
    i.put(field, value);
    return new TenantAdmin(lists, i);
  }
}
