package dev.cairn.store.mysql;

import dev.cairn.nostr.Hex;
import dev.cairn.store.StoreException;
import dev.cairn.store.feed.FeedBounds;
import dev.cairn.store.feed.FeedChange;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * The change-feed rows of one group commit on MySQL, in the write transaction under a savepoint of
 * their own, as on SQLite (docs/decisions/0003-write-path.md): if the insert fails only the savepoint
 * is rolled back, the events still commit, and the caller hands the changes to the retry buffer (the
 * feed never fails a write). Seqs continue {@code tenant_counters.feed_seq}, read under the write
 * transaction's row lock, so feed seqs too are handed out in commit order. {@link #writeAlone} is the
 * same insert in a transaction of its own (a retry-buffer flush, the NIP-40 purge's rows), taking that
 * lock itself.
 */
final class MysqlFeedRows {
  private static final String INSERT = "INSERT INTO feed_events"
      + "(tenant_id, seq, ts, type, event_id, kind, pubkey, reason, store_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

  private static final String LOCK_FEED_SEQ = "SELECT feed_seq FROM tenant_counters WHERE tenant_id = ? FOR UPDATE";
  private static final String MOVE_FEED_SEQ = "UPDATE tenant_counters SET feed_seq = ? WHERE tenant_id = ?";

  /** What the feed insert did: the bounds after it (null when nothing was written) or why it failed. */
  record Written(long lastSeq, FeedBounds bounds, Exception error) {}

  private final String tenantId;

  MysqlFeedRows(String tenantId) {
    this.tenantId = tenantId;
  }

  /** Inserts {@code changes} after {@code lastFeedSeq}; never fails for the feed's own sake (see {@link Written}). */
  Future<Written> write(SqlConnection conn, List<FeedChange> changes, long lastFeedSeq) {
    if (changes.isEmpty()) {
      return Future.succeededFuture(new Written(lastFeedSeq, null, null));
    }
    List<Tuple> rows = new ArrayList<>(changes.size());
    long seq = lastFeedSeq;
    for (FeedChange ch : changes) {
      rows.add(Tuple.of(tenantId, ++seq, ch.ts(), ch.type(), Buffer.buffer(Hex.decode(ch.eventId())), ch.kind(),
          Buffer.buffer(Hex.decode(ch.pubkey())), ch.reason(), ch.storeSeq() > 0 ? ch.storeSeq() : null));
    }
    long last = seq;
    return conn.query("SAVEPOINT feed").execute()
        .compose(v -> MultiRowInsert.run(conn, INSERT, rows))
        .compose(v -> conn.preparedQuery("SELECT MIN(seq) FROM feed_events WHERE tenant_id = ?").execute(Tuple.of(tenantId)))
        .map(min -> {
          Long oldest = min.iterator().next().getLong(0);
          return new FeedBounds(oldest == null ? last + 1 : oldest, last).withInserted(changes.size());
        })
        .compose(bounds -> conn.query("RELEASE SAVEPOINT feed").execute()
            .map(v -> new Written(last, bounds, null)))
        .recover(e -> conn.query("ROLLBACK TO SAVEPOINT feed").execute()
            .map(v -> new Written(lastFeedSeq, null, new StoreException("change-feed rows " + (lastFeedSeq + 1)
                + ".." + last + " of tenant " + tenantId + " not written (rolled back alone, the events commit): "
                + BatchErrors.describe(e), e))));
  }

  /**
   * Inserts {@code changes} in the caller's transaction {@code conn}, which must hold no other feed
   * work: locks the tenant's counter row ({@code FOR UPDATE}, waiting for any writer of the tenant on
   * any pod), numbers the rows after {@code feed_seq} and moves it. Seqs are therefore in commit order
   * with the writers' feed rows. Fails (so the caller rolls back) when the insert fails; fails with
   * {@link CounterMissing} when the tenant has no counter row yet. {@code changes} is not empty.
   */
  Future<FeedBounds> writeAlone(SqlConnection conn, List<FeedChange> changes) {
    if (changes.isEmpty()) {
      throw new IllegalArgumentException("no feed changes to write");
    }
    return conn.preparedQuery(LOCK_FEED_SEQ).execute(Tuple.of(tenantId)).compose(rows -> {
      if (rows.size() == 0) {
        return Future.failedFuture(new CounterMissing(tenantId));
      }
      long feedSeq = rows.iterator().next().getLong(0);
      return write(conn, changes, feedSeq).compose(w -> {
        if (w.error() != null) {
          return Future.failedFuture(w.error());
        }
        return conn.preparedQuery(MOVE_FEED_SEQ).execute(Tuple.of(w.lastSeq(), tenantId)).map(v -> w.bounds());
      });
    });
  }

  /** The tenant has no counter row yet: the caller creates it outside the transaction and retries. */
  static final class CounterMissing extends RuntimeException {
    CounterMissing(String tenantId) {
      super("tenant " + tenantId + " has no tenant_counters row", null, false, false);
    }
  }
}
