package dev.cairn.store.mysql;

import dev.cairn.nostr.EventParser;
import dev.cairn.nostr.Hex;
import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.StoreException;
import dev.cairn.store.StoredRow;
import dev.cairn.store.TagKey;
import dev.cairn.store.WritePlan;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Runs the writes of a {@link WritePlan} on MySQL inside the caller's transaction, the same rows
 * SqliteEventWriter writes (events, tag_index, deletions, removed_events), each keyed by the tenant.
 * The outbox and change-feed rows are {@link MysqlOutboxRows}' and {@link MysqlFeedRows}'.
 *
 * <p>It also keeps the NIP-50 index (search_docs): a row with each stored event that has words, deleted
 * with the event. In the write transaction rather than after commit from the outbox rows as on
 * SQLite: there the index is a separate file so that FTS work never holds the one writer, but here
 * writers are concurrent transactions (one tenant's serialized only by its counter row) and InnoDB
 * tokenizes a FULLTEXT insert only at commit. In the transaction the index is exact whatever the number
 * of pods writing the tenant, with no indexer cursor to share or build, and a REQ right after an OK
 * finds the event (SQLite's index lags the commit).
 */
final class MysqlPlanWriter {
  private static final String INSERT_EVENT = "INSERT INTO events"
      + "(tenant_id, seq, id, pubkey, created_at, kind, d_tag, expiration, json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
  // A tag repeated in one event gives the same entry twice; the second is a no-op, like SQLite's
  // INSERT OR IGNORE (not INSERT IGNORE: that would also hide real errors as warnings).
  private static final String INSERT_TAG = "INSERT INTO tag_index(tenant_id, k, created_at, seq) VALUES (?, ?, ?, ?)"
      + " ON DUPLICATE KEY UPDATE seq = seq";
  private static final String DELETE_EVENT = "DELETE FROM events WHERE tenant_id = ? AND seq = ?";
  private static final String DELETE_TAG = "DELETE FROM tag_index WHERE tenant_id = ? AND k = ? AND created_at = ? AND seq = ?";
  // SQLite's INSERT OR REPLACE: a seq is removed once, but a retried purge must not fail on it.
  private static final String KEEP_REMOVED = "INSERT INTO removed_events(tenant_id, seq, removed_at, json) VALUES (?, ?, ?, ?)"
      + " ON DUPLICATE KEY UPDATE removed_at = VALUES(removed_at), json = VALUES(json)";
  // Keeps the newest deletion per (target, deleter). MySQL assigns left to right, so deletion_id is
  // compared against the old created_at before created_at itself is raised.
  private static final String UPSERT_TOMBSTONE = "INSERT INTO deletions"
      + "(tenant_id, target_key, pubkey, target, created_at, deletion_id) VALUES (?, ?, ?, ?, ?, ?)"
      + " ON DUPLICATE KEY UPDATE"
      + " deletion_id = IF(VALUES(created_at) > created_at, VALUES(deletion_id), deletion_id),"
      + " created_at = GREATEST(created_at, VALUES(created_at))";

  private static final String INSERT_SEARCH = "INSERT INTO search_docs(tenant_id, seq, body) VALUES (?, ?, ?)";
  private static final String DELETE_SEARCH = "DELETE FROM search_docs WHERE tenant_id = ? AND seq = ?";

  private final String tenantId;

  MysqlPlanWriter(String tenantId) {
    this.tenantId = tenantId;
  }

  /** Runs {@code plan}'s ops in order; {@code nowMs} stamps removed_events. */
  Future<Void> apply(SqlConnection conn, WritePlan plan, long nowMs) {
    OrderedBatches out = new OrderedBatches();
    for (WritePlan.Op op : plan.ops()) {
      if (op instanceof WritePlan.Insert in) {
        insert(out, in);
      } else if (op instanceof WritePlan.Remove rm) {
        try {
          remove(out, rm.row(), nowMs);
        } catch (InvalidMessageException e) {
          return Future.failedFuture(new StoreException("stored event " + rm.row().id() + " (seq " + rm.row().seq()
              + ") of tenant " + tenantId + " does not parse, so its tag entries cannot be removed: "
              + e.getMessage(), e));
        }
      } else if (op instanceof WritePlan.Tombstone t) {
        out.add(UPSERT_TOMBSTONE, Tuple.of(tenantId, Buffer.buffer(TombstoneKey.of(t.target())),
            Buffer.buffer(Hex.decode(t.pubkey())), Buffer.buffer(t.target().getBytes(StandardCharsets.UTF_8)),
            t.createdAt(), Buffer.buffer(Hex.decode(t.deletionId()))));
      }
    }
    return out.run(conn);
  }

  private void insert(OrderedBatches out, WritePlan.Insert in) {
    NostrEvent e = in.event();
    Buffer d = in.dTag() == null ? null : Buffer.buffer(in.dTag().getBytes(StandardCharsets.UTF_8));
    out.add(INSERT_EVENT, Tuple.of(tenantId, in.seq(), Buffer.buffer(Hex.decode(e.id())),
        Buffer.buffer(Hex.decode(e.pubkey())), e.createdAt(), e.kind(), d, in.expiration(), Buffer.buffer(e.json())));
    for (long k : TagKey.keys(e.tags())) {
      out.add(INSERT_TAG, Tuple.of(tenantId, k, e.createdAt(), in.seq()));
    }
    String body = MysqlSearchText.body(e.content());
    if (body != null) {
      out.add(INSERT_SEARCH, Tuple.of(tenantId, in.seq(), body));
    }
  }

  /** Deletes a row and its tag entries, keeping its JSON in removed_events (the outbox and feed name events by seq). */
  private void remove(OrderedBatches out, StoredRow row, long nowMs) throws InvalidMessageException {
    List<List<String>> tags = EventParser.tags(row.json());
    out.add(DELETE_EVENT, Tuple.of(tenantId, row.seq()));
    for (long k : TagKey.keys(tags)) {
      out.add(DELETE_TAG, Tuple.of(tenantId, k, row.createdAt(), row.seq()));
    }
    out.add(DELETE_SEARCH, Tuple.of(tenantId, row.seq())); // no row when it had no words: deletes nothing
    out.add(KEEP_REMOVED, Tuple.of(tenantId, row.seq(), nowMs, Buffer.buffer(row.json())));
  }
}
