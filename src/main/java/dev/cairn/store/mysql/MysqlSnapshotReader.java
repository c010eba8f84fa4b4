package dev.cairn.store.mysql;

import dev.cairn.nostr.Hex;
import dev.cairn.store.StoredRow;
import dev.cairn.store.WriteSnapshot;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads what {@link dev.cairn.store.WriteRules#plan} needs for one batch on MySQL, inside the write
 * transaction (after the counter row is locked, so no other writer of the tenant changes it
 * meanwhile): rows by id, rows by address, tombstones. One query per kind of key and per
 * {@link #KEYS_PER_QUERY} keys, not one per event: a group commit's reads stay a few round trips.
 */
final class MysqlSnapshotReader {
  /** Keys per IN / OR list: well below the 65535 placeholders a statement may have, short enough to plan fast. */
  static final int KEYS_PER_QUERY = 200;

  static final String COLUMNS = "SELECT seq, id, pubkey, kind, created_at, d_tag, json FROM events";

  private final String tenantId;

  MysqlSnapshotReader(String tenantId) {
    this.tenantId = tenantId;
  }

  Future<WriteSnapshot> fetch(SqlConnection conn, WriteSnapshot.Keys keys) {
    WriteSnapshot s = new WriteSnapshot();
    List<String> ids = new ArrayList<>();
    for (String id : keys.ids()) {
      if (Hex.isLowerHex(id, 64)) { // an e tag may name no event id at all
        ids.add(id);
      }
    }
    List<String[]> addresses = new ArrayList<>();
    for (String address : keys.addresses()) {
      s.addressFetched(address);
      String[] a = WriteSnapshot.splitAddress(address);
      if (Hex.isLowerHex(a[1], 64)) {
        addresses.add(a);
      }
    }
    List<String[]> tombstones = new ArrayList<>();
    for (String key : keys.tombstones()) {
      String[] t = WriteSnapshot.splitTombstoneKey(key);
      if (Hex.isLowerHex(t[1], 64)) {
        tombstones.add(t);
      }
    }
    Future<Void> chain = Future.succeededFuture();
    for (List<String> chunk : chunks(ids)) {
      chain = chain.compose(v -> byIds(conn, chunk, s));
    }
    for (List<String[]> chunk : chunks(addresses)) {
      chain = chain.compose(v -> byAddresses(conn, chunk, s));
    }
    for (List<String[]> chunk : chunks(tombstones)) {
      chain = chain.compose(v -> tombstones(conn, chunk, s));
    }
    return chain.map(v -> s);
  }

  private Future<Void> byIds(SqlConnection conn, List<String> ids, WriteSnapshot s) {
    Tuple params = Tuple.of(tenantId);
    for (String id : ids) {
      params.addValue(Buffer.buffer(Hex.decode(id)));
    }
    String sql = COLUMNS + " WHERE tenant_id = ? AND id IN (" + "?, ".repeat(ids.size() - 1) + "?)";
    return conn.preparedQuery(sql).execute(params).map(rows -> addRows(rows, s));
  }

  // OR of equalities rather than a row-constructor IN: both servers turn it into index ranges on
  // events_address, which MariaDB does not reliably do for (a, b, c) IN ((...), ...).
  private Future<Void> byAddresses(SqlConnection conn, List<String[]> addresses, WriteSnapshot s) {
    Tuple params = Tuple.of(tenantId);
    for (String[] a : addresses) {
      params.addValue(Buffer.buffer(Hex.decode(a[1])));
      params.addValue(Integer.parseInt(a[0]));
      params.addValue(Buffer.buffer(a[2].getBytes(StandardCharsets.UTF_8)));
    }
    String sql = COLUMNS + " WHERE tenant_id = ? AND ("
        + "(pubkey = ? AND kind = ? AND d_tag = ?) OR ".repeat(addresses.size() - 1)
        + "(pubkey = ? AND kind = ? AND d_tag = ?))";
    return conn.preparedQuery(sql).execute(params).map(rows -> addRows(rows, s));
  }

  private Future<Void> tombstones(SqlConnection conn, List<String[]> keys, WriteSnapshot s) {
    Tuple params = Tuple.of(tenantId);
    for (String[] t : keys) {
      params.addValue(Buffer.buffer(TombstoneKey.of(t[0])));
      params.addValue(Buffer.buffer(Hex.decode(t[1])));
    }
    String sql = "SELECT target, pubkey, created_at, deletion_id FROM deletions WHERE tenant_id = ? AND ("
        + "(target_key = ? AND pubkey = ?) OR ".repeat(keys.size() - 1) + "(target_key = ? AND pubkey = ?))";
    return conn.preparedQuery(sql).execute(params).map(rows -> {
      for (Row r : rows) {
        s.addTombstone(r.getBuffer(0).toString(StandardCharsets.UTF_8), Hex.encode(r.getBuffer(1).getBytes()),
            r.getLong(2), Hex.encode(r.getBuffer(3).getBytes()));
      }
      return null;
    });
  }

  private static Void addRows(RowSet<Row> rows, WriteSnapshot s) {
    for (Row r : rows) {
      s.addRow(storedRow(r));
    }
    return null;
  }

  private static <T> List<List<T>> chunks(List<T> all) {
    List<List<T>> out = new ArrayList<>();
    for (int i = 0; i < all.size(); i += KEYS_PER_QUERY) {
      out.add(all.subList(i, Math.min(all.size(), i + KEYS_PER_QUERY)));
    }
    return out;
  }

  /** One row of {@link #COLUMNS} (seq, id, pubkey, kind, created_at, d_tag, json). */
  static StoredRow storedRow(Row r) {
    Buffer d = r.getBuffer(5);
    return new StoredRow(r.getLong(0), Hex.encode(r.getBuffer(1).getBytes()),
        Hex.encode(r.getBuffer(2).getBytes()), r.getInteger(3), r.getLong(4),
        d == null ? null : d.toString(StandardCharsets.UTF_8), r.getBuffer(6).getBytes());
  }
}
