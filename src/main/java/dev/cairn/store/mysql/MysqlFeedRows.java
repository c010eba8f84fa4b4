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
 * transaction's row lock, so feed seqs too are handed out in commit order.
 */
final class MysqlFeedRows {
  private static final String INSERT = "INSERT INTO feed_events"
      + "(tenant_id, seq, ts, type, event_id, kind, pubkey, reason, store_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

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
        .compose(v -> conn.preparedQuery(INSERT).executeBatch(rows))
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
}
