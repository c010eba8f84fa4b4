package dev.cairn.store;

import dev.cairn.nostr.EventParser;
import dev.cairn.nostr.Hex;
import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.JsonStrings;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.outbox.OutboxWriter;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * The SQLite side of a group commit, on the writer connection inside the caller's transaction: reads
 * what {@link WriteRules} needs for a batch ({@link #fetch}), then runs the writes it planned
 * ({@link #apply}: events, their tag-index entries, tombstones) and the outbox rows ({@link #enqueueOutbox}).
 * The batch's ids and tombstone targets are each looked up by one statement (its keys as a JSON array
 * through {@code json_each}, an index probe per key inside SQLite): a statement per event cost the writer
 * two round trips through the driver per event, ~5 us of its ~100. An event's tag-index entries are
 * written (and a replaced event's deleted) the same way, one statement per event: a row each cost a
 * contact list's ~80 entries ~80 statement runs ({@link #tagKeys}). Statements are compiled once and kept
 * by the writer's {@link Sql}, which compiles them afresh after a failure. Not thread-safe: the store's
 * write lock guards it.
 */
final class SqliteEventWriter {
  private static final String BY_IDS = "SELECT seq, id, pubkey, kind, created_at, d_tag, json FROM events"
      + " WHERE id IN (SELECT unhex(value) FROM json_each(?))";
  private static final String BY_ADDRESS =
      "SELECT seq, id, created_at, json FROM events WHERE pubkey = ? AND kind = ? AND d_tag = ?";
  private static final String TOMBSTONES = "SELECT target, pubkey, created_at, deletion_id FROM deletions"
      + " WHERE target IN (SELECT value FROM json_each(?))";
  private static final String INSERT_EVENT =
      "INSERT INTO events(seq, id, pubkey, created_at, kind, d_tag, expiration, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
  private static final String INSERT_TAGS = "INSERT OR IGNORE INTO tag_index(k, created_at, seq)"
      + " SELECT value, ?, ? FROM json_each(?)";
  private static final String DELETE_EVENT = "DELETE FROM events WHERE seq = ?";
  private static final String DELETE_TAGS = "DELETE FROM tag_index WHERE k IN (SELECT value FROM json_each(?))"
      + " AND created_at = ? AND seq = ?";
  private static final String KEEP_REMOVED =
      "INSERT OR REPLACE INTO removed_events(seq, removed_at, json) VALUES (?, ?, ?)";
  private static final String UPSERT_TOMBSTONE = "INSERT INTO deletions(target, pubkey, created_at, deletion_id)"
      + " VALUES (?, ?, ?, ?) ON CONFLICT(target, pubkey) DO UPDATE SET created_at = excluded.created_at,"
      + " deletion_id = excluded.deletion_id WHERE excluded.created_at > deletions.created_at";

  private final Sql sql;
  private final OutboxWriter outbox;

  SqliteEventWriter(Sql writer, OutboxWriter outbox) {
    this.sql = writer;
    this.outbox = outbox;
  }

  /** What the store holds for {@code keys}. */
  WriteSnapshot fetch(WriteSnapshot.Keys keys) throws SQLException {
    WriteSnapshot s = new WriteSnapshot();
    List<String> ids = new ArrayList<>(keys.ids().size());
    for (String id : keys.ids()) {
      if (Hex.isLowerHex(id, 64)) { // else an e tag naming no event id
        ids.add(id);
      }
    }
    if (!ids.isEmpty()) {
      PreparedStatement byIds = sql.prepare(BY_IDS);
      byIds.setString(1, jsonArray(ids));
      try (ResultSet rs = byIds.executeQuery()) {
        while (rs.next()) {
          s.addRow(new StoredRow(rs.getLong(1), Hex.encode(rs.getBytes(2)), Hex.encode(rs.getBytes(3)), rs.getInt(4),
              rs.getLong(5), rs.getString(6), rs.getBytes(7)));
        }
      }
    }
    for (String address : keys.addresses()) {
      s.addressFetched(address);
      String[] a = WriteSnapshot.splitAddress(address);
      if (!Hex.isLowerHex(a[1], 64)) {
        continue;
      }
      int kind = Integer.parseInt(a[0]);
      PreparedStatement byAddress = sql.prepare(BY_ADDRESS);
      byAddress.setBytes(1, Hex.decode(a[1]));
      byAddress.setInt(2, kind);
      byAddress.setString(3, a[2]);
      try (ResultSet rs = byAddress.executeQuery()) {
        while (rs.next()) {
          s.addRow(new StoredRow(rs.getLong(1), Hex.encode(rs.getBytes(2)), a[1], kind, rs.getLong(3), a[2],
              rs.getBytes(4)));
        }
      }
    }
    if (!keys.tombstones().isEmpty()) {
      List<String> targets = new ArrayList<>(keys.tombstones().size());
      for (String key : keys.tombstones()) {
        targets.add(WriteSnapshot.splitTombstoneKey(key)[0]);
      }
      PreparedStatement tombstones = sql.prepare(TOMBSTONES);
      tombstones.setString(1, jsonArray(targets));
      try (ResultSet rs = tombstones.executeQuery()) {
        while (rs.next()) {
          String target = rs.getString(1);
          String pubkey = rs.getString(2);
          if (keys.tombstones().contains(WriteSnapshot.tombstoneKey(target, pubkey))) {
            s.addTombstone(target, pubkey, rs.getLong(3), rs.getString(4));
          }
        }
      }
    }
    return s;
  }

  /** Runs the planned writes in order: events, their tag-index entries, removals, tombstones. */
  void apply(WritePlan plan) throws SQLException {
    for (WritePlan.Op op : plan.ops()) {
      if (op instanceof WritePlan.Insert in) {
        insert(in);
      } else if (op instanceof WritePlan.Remove rm) {
        remove(rm.row());
      } else if (op instanceof WritePlan.Tombstone t) {
        PreparedStatement upsertTombstone = sql.prepare(UPSERT_TOMBSTONE);
        upsertTombstone.setString(1, t.target());
        upsertTombstone.setString(2, t.pubkey());
        upsertTombstone.setLong(3, t.createdAt());
        upsertTombstone.setString(4, t.deletionId());
        upsertTombstone.executeUpdate();
      }
    }
  }

  /**
   * Writes the outbox rows of every event of {@code batch} the plan stored (and of what it removed),
   * {@code occurredAt} their time: after {@link #apply}, inside the same transaction.
   */
  void enqueueOutbox(WritePlan plan, List<NostrEvent> batch, long occurredAt) throws SQLException {
    for (int i = 0; i < batch.size(); i++) { // a result per event of the batch, in its order
      outbox.add(plan.results().get(i), batch.get(i).json(), occurredAt);
    }
    outbox.flush();
  }

  private void insert(WritePlan.Insert in) throws SQLException {
    NostrEvent e = in.event();
    PreparedStatement insertEvent = sql.prepare(INSERT_EVENT);
    insertEvent.setLong(1, in.seq());
    insertEvent.setBytes(2, Hex.decode(e.id()));
    insertEvent.setBytes(3, Hex.decode(e.pubkey()));
    insertEvent.setLong(4, e.createdAt());
    insertEvent.setInt(5, e.kind());
    insertEvent.setString(6, in.dTag());
    if (in.expiration() == null) {
      insertEvent.setNull(7, Types.INTEGER);
    } else {
      insertEvent.setLong(7, in.expiration());
    }
    insertEvent.setBytes(8, e.json());
    insertEvent.executeUpdate();
    String keys = tagKeys(e.tags());
    if (keys != null) {
      PreparedStatement insertTag = sql.prepare(INSERT_TAGS);
      insertTag.setLong(1, e.createdAt());
      insertTag.setLong(2, in.seq());
      insertTag.setString(3, keys);
      insertTag.executeUpdate();
    }
  }

  /**
   * Deletes a row and its tag entries, keeping its JSON in {@code removed_events} for the outbox and
   * the change feed, which name events instead of copying them.
   */
  private void remove(StoredRow row) throws SQLException {
    PreparedStatement deleteEvent = sql.prepare(DELETE_EVENT);
    deleteEvent.setLong(1, row.seq());
    deleteEvent.executeUpdate();
    List<List<String>> tags;
    try {
      tags = EventParser.tags(row.json());
    } catch (InvalidMessageException e) {
      throw new SQLException("stored event " + row.id() + " does not parse: " + e.getMessage(), e);
    }
    String keys = tagKeys(tags);
    if (keys != null) {
      PreparedStatement deleteTag = sql.prepare(DELETE_TAGS);
      deleteTag.setString(1, keys);
      deleteTag.setLong(2, row.createdAt());
      deleteTag.setLong(3, row.seq());
      deleteTag.executeUpdate();
    }
    // An undelivered EventStored and the change feed's stored row still show the event.
    PreparedStatement keepRemoved = sql.prepare(KEEP_REMOVED);
    keepRemoved.setLong(1, row.seq());
    keepRemoved.setLong(2, System.currentTimeMillis());
    keepRemoved.setBytes(3, row.json());
    keepRemoved.executeUpdate();
  }

  /** {@code values} as a JSON array of strings: the keys a batch's lookup reads through {@code json_each}. */
  private static String jsonArray(List<String> values) {
    StringBuilder b = new StringBuilder(values.size() * 68 + 2).append('[');
    for (String v : values) {
      (b.length() > 1 ? b.append(',') : b).append(JsonStrings.quote(v));
    }
    return b.append(']').toString();
  }

  /**
   * An event's tag-index keys ({@link TagKey#keys}) as a JSON array, or null when it has none: its
   * entries are written (or deleted) by one statement through {@code json_each}, not a row each (binds,
   * step and reset through JNI and a VDBE run per row: the writer's CPU per event at 50 x 20 ingest was
   * ~12% higher that way, docs/benchmarks.md).
   */
  private static String tagKeys(List<List<String>> tags) {
    List<Long> keys = TagKey.keys(tags);
    if (keys.isEmpty()) {
      return null;
    }
    StringBuilder b = new StringBuilder(keys.size() * 20 + 2).append('[');
    for (long k : keys) {
      (b.length() > 1 ? b.append(',') : b).append(k);
    }
    return b.append(']').toString();
  }
}
