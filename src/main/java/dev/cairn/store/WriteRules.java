package dev.cairn.store;

import dev.cairn.nostr.EventTags;
import dev.cairn.nostr.Kinds;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistResult.Duplicate;
import dev.cairn.store.PersistResult.Rejected;
import dev.cairn.store.PersistResult.Stored;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The write semantics of CONTRACT section 3, decided in memory for a whole batch, the same for every
 * dialect: duplicates, NIP-09 deletions and their tombstones, replaceable (newest per pubkey+kind, ties
 * to the lowest id) and addressable (per pubkey+kind+d) events, NIP-40 expiry, no ephemeral events.
 * Events are applied in order, as if one after the other. The store first fetches what the batch
 * touches ({@link #keysOf}), the rules then {@link #plan} the writes, and the store applies them in
 * one transaction: one round of reads and one of writes per batch, whatever the dialect.
 */
public final class WriteRules {
  public static final String DUPLICATE_ID = "duplicate: already have this event";
  public static final String DUPLICATE_OLDER = "duplicate: have a newer version of this event";
  public static final String BLOCKED_DELETED = "blocked: deleted by its author";
  public static final String INVALID_EPHEMERAL = "invalid: ephemeral events are not stored";
  public static final String INVALID_EXPIRED = "invalid: event has expired";

  private WriteRules() {}

  /** {@code kind:pubkey:d}: the key of a replaceable (d empty) or addressable event. */
  public static String address(int kind, String pubkey, String d) {
    return kind + ":" + pubkey + ":" + d;
  }

  /** The d value that addresses {@code e}: null for regular kinds, "" for replaceable ones. */
  public static String dTag(NostrEvent e) {
    if (Kinds.isAddressable(e.kind())) {
      return EventTags.dTag(e);
    }
    return Kinds.isReplaceable(e.kind()) ? "" : null;
  }

  /** Everything {@link #plan} may look at for {@code batch}: ids, addresses and tombstone keys. */
  public static WriteSnapshot.Keys keysOf(List<NostrEvent> batch) {
    Set<String> ids = new HashSet<>();
    Set<String> addresses = new HashSet<>();
    Set<String> tombstones = new HashSet<>();
    for (NostrEvent e : batch) {
      ids.add(e.id());
      tombstones.add(WriteSnapshot.tombstoneKey(e.id(), e.pubkey()));
      String d = dTag(e);
      if (d != null) {
        String a = address(e.kind(), e.pubkey(), d);
        addresses.add(a);
        tombstones.add(WriteSnapshot.tombstoneKey(a, e.pubkey()));
      }
      if (e.kind() == Kinds.DELETION) {
        for (List<String> tag : e.tags()) {
          if (tag.size() < 2) {
            continue;
          }
          if (tag.get(0).equals("e")) {
            ids.add(tag.get(1));
          } else if (tag.get(0).equals("a")) {
            String a = deletedAddress(tag.get(1), e.pubkey());
            if (a != null) {
              addresses.add(a);
            }
          }
        }
      }
    }
    return new WriteSnapshot.Keys(ids, addresses, tombstones);
  }

  /**
   * Decides every event of {@code batch} against {@code state} (updated in place), assigning seqs
   * after {@code highWater}.
   */
  public static WritePlan plan(List<NostrEvent> batch, WriteSnapshot state, long nowEpochSeconds, long highWater) {
    List<PersistResult> results = new ArrayList<>(batch.size());
    List<WritePlan.Op> ops = new ArrayList<>(batch.size() * 2);
    long seq = highWater;
    for (NostrEvent e : batch) {
      PersistResult r = decide(e, state, nowEpochSeconds);
      if (r == null) {
        List<Removal> removed = new ArrayList<>(0);
        String d = dTag(e);
        if (d != null) {
          for (StoredRow old : List.copyOf(state.byAddress.getOrDefault(address(e.kind(), e.pubkey(), d), List.of()))) {
            remove(state, ops, removed, old, RemovalReason.REPLACED);
          }
        }
        seq++;
        ops.add(new WritePlan.Insert(seq, e, d, EventTags.expiration(e)));
        state.addRow(new StoredRow(seq, e.id(), e.pubkey(), e.kind(), e.createdAt(), d, e.json()));
        if (e.kind() == Kinds.DELETION) {
          applyDeletion(e, state, ops, removed);
        }
        r = new Stored(seq, removed);
      }
      results.add(r);
    }
    return new WritePlan(results, ops, seq);
  }

  /** Null when {@code e} is to be stored, else why not. */
  private static PersistResult decide(NostrEvent e, WriteSnapshot state, long now) {
    int kind = e.kind();
    if (Kinds.isEphemeral(kind)) {
      return new Rejected(INVALID_EPHEMERAL);
    }
    Long expiration = EventTags.expiration(e);
    if (expiration != null && expiration <= now) {
      return new Rejected(INVALID_EXPIRED);
    }
    if (state.byId.containsKey(e.id())) {
      return new Duplicate(DUPLICATE_ID);
    }
    // A deletion of a deletion has no effect (NIP-09), so kind 5 is never blocked by id.
    if (kind != Kinds.DELETION && state.tombstones.containsKey(WriteSnapshot.tombstoneKey(e.id(), e.pubkey()))) {
      return new Rejected(BLOCKED_DELETED);
    }
    String d = dTag(e);
    if (d != null) {
      String a = address(kind, e.pubkey(), d);
      WriteSnapshot.Tombstone t = state.tombstones.get(WriteSnapshot.tombstoneKey(a, e.pubkey()));
      if (t != null && t.createdAt() >= e.createdAt()) {
        return new Rejected(BLOCKED_DELETED);
      }
      for (StoredRow old : state.byAddress.getOrDefault(a, List.of())) {
        if (old.createdAt() > e.createdAt() || (old.createdAt() == e.createdAt() && old.id().compareTo(e.id()) < 0)) {
          return new Duplicate(DUPLICATE_OLDER);
        }
      }
    }
    return null;
  }

  /** NIP-09: the e and a tags of a stored kind 5 event, author only; records tombstones. */
  private static void applyDeletion(NostrEvent del, WriteSnapshot state, List<WritePlan.Op> ops, List<Removal> removed) {
    for (List<String> tag : del.tags()) {
      if (tag.size() < 2) {
        continue;
      }
      String value = tag.get(1);
      if (tag.get(0).equals("e")) {
        tombstone(state, ops, value, del);
        StoredRow target = state.byId.get(value);
        if (target != null && target.kind() != Kinds.DELETION && del.pubkey().equals(target.pubkey())) {
          remove(state, ops, removed, target, RemovalReason.NIP09);
        }
      } else if (tag.get(0).equals("a")) {
        String a = deletedAddress(value, del.pubkey());
        if (a == null) {
          continue;
        }
        tombstone(state, ops, a, del);
        for (StoredRow old : List.copyOf(state.byAddress.getOrDefault(a, List.of()))) {
          if (old.createdAt() <= del.createdAt()) {
            remove(state, ops, removed, old, RemovalReason.NIP09);
          }
        }
      }
    }
  }

  /**
   * The address an {@code a} tag of a deletion by {@code deleter} names, or null when it names
   * nothing the deleter may delete (not its own, not a replaceable/addressable kind, malformed).
   */
  static String deletedAddress(String value, String deleter) {
    String[] parts = value.split(":", 3);
    if (parts.length < 2 || !isDigits(parts[0])) {
      return null;
    }
    int kind = Integer.parseInt(parts[0]);
    if (!parts[1].equals(deleter) || !(Kinds.isReplaceable(kind) || Kinds.isAddressable(kind))) {
      return null;
    }
    String d = Kinds.isAddressable(kind) && parts.length == 3 ? parts[2] : "";
    return address(kind, deleter, d);
  }

  private static boolean isDigits(String s) {
    if (s.isEmpty() || s.length() > 9) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private static void tombstone(WriteSnapshot state, List<WritePlan.Op> ops, String target, NostrEvent del) {
    String key = WriteSnapshot.tombstoneKey(target, del.pubkey());
    WriteSnapshot.Tombstone old = state.tombstones.get(key);
    if (old == null || del.createdAt() > old.createdAt()) {
      state.tombstones.put(key, new WriteSnapshot.Tombstone(del.createdAt(), del.id()));
      ops.add(new WritePlan.Tombstone(target, del.pubkey(), del.createdAt(), del.id()));
    }
  }

  private static void remove(WriteSnapshot state, List<WritePlan.Op> ops, List<Removal> removed, StoredRow row,
      RemovalReason reason) {
    state.byId.remove(row.id());
    String a = row.address();
    if (a != null) {
      List<StoredRow> rows = state.byAddress.get(a);
      if (rows != null) {
        rows.removeIf(r -> r.seq() == row.seq());
      }
    }
    ops.add(new WritePlan.Remove(row, reason));
    removed.add(new Removal(row.id(), row.kind(), row.pubkey(), row.seq(), reason));
  }
}
