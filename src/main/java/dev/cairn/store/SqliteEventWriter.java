package dev.cairn.store;

import dev.cairn.nostr.EventParser;
import dev.cairn.nostr.Hex;
import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.outbox.OutboxWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

/**
 * The SQLite side of a group commit, on the writer connection inside the caller's transaction: reads
 * what {@link WriteRules} needs for a batch ({@link #fetch}), then runs the writes it planned
 * ({@link #apply}) — events, their tag-index entries, tombstones and the outbox rows, in one go.
 * Statements are prepared once. Not thread-safe: the store's write lock guards it.
 */
final class SqliteEventWriter {
  private final PreparedStatement byId;
  private final PreparedStatement byAddress;
  private final PreparedStatement tombstone;
  private final PreparedStatement insertEvent;
  private final PreparedStatement insertTag;
  private final PreparedStatement deleteEvent;
  private final PreparedStatement deleteTag;
  private final PreparedStatement upsertTombstone;
  private final PreparedStatement keepRemoved;
  private final OutboxWriter outbox;

  SqliteEventWriter(Connection c, OutboxWriter outbox) throws SQLException {
    this.outbox = outbox;
    byId = c.prepareStatement("SELECT seq, pubkey, kind, created_at, d_tag, json FROM events WHERE id = ?");
    byAddress = c.prepareStatement(
        "SELECT seq, id, created_at, json FROM events WHERE pubkey = ? AND kind = ? AND d_tag = ?");
    tombstone = c.prepareStatement("SELECT created_at, deletion_id FROM deletions WHERE target = ? AND pubkey = ?");
    insertEvent = c.prepareStatement("INSERT INTO events(seq, id, pubkey, created_at, kind, d_tag, expiration, json)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    insertTag = c.prepareStatement("INSERT OR IGNORE INTO tag_index(k, created_at, seq) VALUES (?, ?, ?)");
    deleteEvent = c.prepareStatement("DELETE FROM events WHERE seq = ?");
    deleteTag = c.prepareStatement("DELETE FROM tag_index WHERE k = ? AND created_at = ? AND seq = ?");
    keepRemoved = c.prepareStatement("INSERT OR REPLACE INTO removed_events(seq, removed_at, json) VALUES (?, ?, ?)");
    upsertTombstone = c.prepareStatement(
        "INSERT INTO deletions(target, pubkey, created_at, deletion_id) VALUES (?, ?, ?, ?)"
            + " ON CONFLICT(target, pubkey) DO UPDATE SET created_at = excluded.created_at,"
            + " deletion_id = excluded.deletion_id WHERE excluded.created_at > deletions.created_at");
  }

  /** What the store holds for {@code keys}. */
  WriteSnapshot fetch(WriteSnapshot.Keys keys) throws SQLException {
    WriteSnapshot s = new WriteSnapshot();
    for (String id : keys.ids()) {
      if (!Hex.isLowerHex(id, 64)) {
        continue; // an e tag naming no event id
      }
      byId.setBytes(1, Hex.decode(id));
      try (ResultSet rs = byId.executeQuery()) {
        if (rs.next()) {
          s.addRow(new StoredRow(rs.getLong(1), id, Hex.encode(rs.getBytes(2)), rs.getInt(3), rs.getLong(4),
              rs.getString(5), rs.getBytes(6)));
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
    for (String key : keys.tombstones()) {
      String[] t = WriteSnapshot.splitTombstoneKey(key);
      tombstone.setString(1, t[0]);
      tombstone.setString(2, t[1]);
      try (ResultSet rs = tombstone.executeQuery()) {
        if (rs.next()) {
          s.addTombstone(t[0], t[1], rs.getLong(1), rs.getString(2));
        }
      }
    }
    return s;
  }

  /** Runs the planned writes in order, then writes the outbox rows of every stored event. */
  void apply(WritePlan plan, List<NostrEvent> batch, long nowMs) throws SQLException {
    for (WritePlan.Op op : plan.ops()) {
      if (op instanceof WritePlan.Insert in) {
        insert(in);
      } else if (op instanceof WritePlan.Remove rm) {
        remove(rm.row());
      } else if (op instanceof WritePlan.Tombstone t) {
        upsertTombstone.setString(1, t.target());
        upsertTombstone.setString(2, t.pubkey());
        upsertTombstone.setLong(3, t.createdAt());
        upsertTombstone.setString(4, t.deletionId());
        upsertTombstone.executeUpdate();
      }
    }
    for (int i = 0; i < batch.size(); i++) { // a result per event of the batch, in its order
      outbox.add(plan.results().get(i), batch.get(i).json(), nowMs);
    }
    outbox.flush();
  }

  private void insert(WritePlan.Insert in) throws SQLException {
    NostrEvent e = in.event();
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
    if (tagBatch(insertTag, e.tags(), e.createdAt(), in.seq())) {
      insertTag.executeBatch();
    }
  }

  /**
   * Deletes a row and its tag entries, keeping its JSON in {@code removed_events} for the outbox and
   * the change feed, which name events instead of copying them.
   */
  private void remove(StoredRow row) throws SQLException {
    deleteEvent.setLong(1, row.seq());
    deleteEvent.executeUpdate();
    List<List<String>> tags;
    try {
      tags = EventParser.tags(row.json());
    } catch (InvalidMessageException e) {
      throw new SQLException("stored event " + row.id() + " does not parse: " + e.getMessage(), e);
    }
    if (tagBatch(deleteTag, tags, row.createdAt(), row.seq())) {
      deleteTag.executeBatch();
    }
    // An undelivered EventStored and the change feed's stored row still show the event.
    keepRemoved.setLong(1, row.seq());
    keepRemoved.setLong(2, System.currentTimeMillis());
    keepRemoved.setBytes(3, row.json());
    keepRemoved.executeUpdate();
  }

  private static boolean tagBatch(PreparedStatement ps, List<List<String>> tags, long createdAt, long seq)
      throws SQLException {
    boolean any = false;
    for (long k : TagKey.keys(tags)) {
      ps.setLong(1, k);
      ps.setLong(2, createdAt);
      ps.setLong(3, seq);
      ps.addBatch();
      any = true;
    }
    return any;
  }

}
