package dev.cairn.store.mysql;

import dev.cairn.store.outbox.LedgerClaim;
import dev.cairn.store.outbox.ProcessedEventLedger;
import io.vertx.core.Future;
import io.vertx.mysqlclient.MySQLException;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;

/**
 * The processed-event ledger on MySQL (the semantics of {@link ProcessedEventLedger}), scoped by
 * {@code tenant_id}. Each step is one autocommit statement that decides on its own: the INSERT (the
 * primary key lets one claimer in), the takeover UPDATE (conditioned on the stale {@code started_at}),
 * and done/release (conditioned on the claim's {@code started_at}). No transaction holds a lock across
 * statements, so pods claiming the same key never deadlock; whoever loses a step only learns why.
 */
final class MysqlLedger {
  /** MySQL's duplicate-key error (ER_DUP_ENTRY). */
  private static final int DUPLICATE_KEY = 1062;
  /** A row released between our INSERT and our look: claim again, a few times at most. */
  private static final int CLAIM_TRIES = 3;
  /** Still churning after those tries: try again this soon (a lease would park the row for nothing). */
  private static final long CHURN_RETRY_MS = 1_000;

  private static final String INSERT = "INSERT INTO processed_events(tenant_id, event_id, handler, status,"
      + " started_at) VALUES (?, ?, ?, 'in_progress', ?)";
  private static final String TAKE_OVER = "UPDATE processed_events SET started_at = ? WHERE tenant_id = ?"
      + " AND event_id = ? AND handler = ? AND status = 'in_progress' AND started_at <= ? AND started_at < ?";
  private static final String LOOK = "SELECT status, started_at FROM processed_events WHERE tenant_id = ?"
      + " AND event_id = ? AND handler = ?";
  private static final String DONE = "UPDATE processed_events SET status = 'done', processed_at = ?"
      + " WHERE tenant_id = ? AND event_id = ? AND handler = ? AND status = 'in_progress' AND started_at = ?";
  private static final String RELEASE = "DELETE FROM processed_events WHERE tenant_id = ? AND event_id = ?"
      + " AND handler = ? AND status = 'in_progress' AND started_at = ?";
  private static final String PRUNE = "DELETE FROM processed_events WHERE tenant_id = ? AND started_at < ? LIMIT ?";

  private final String tenant;

  MysqlLedger(String tenant) {
    this.tenant = tenant;
  }

  /** INSERT in_progress, or take over an in_progress claim older than {@code leaseMs}. */
  Future<LedgerClaim> claim(SqlClient db, String eventId, String handler, long now, long leaseMs) {
    return claim(db, eventId, handler, now, leaseMs, CLAIM_TRIES);
  }

  private Future<LedgerClaim> claim(SqlClient db, String eventId, String handler, long now, long leaseMs, int tries) {
    return db.preparedQuery(INSERT).execute(Tuple.of(tenant, eventId, handler, now))
        .<LedgerClaim>map(rs -> new LedgerClaim.Claimed(now))
        .recover(e -> {
          if (!(e instanceof MySQLException m && m.getErrorCode() == DUPLICATE_KEY)) {
            return Future.failedFuture(e);
          }
          return db.preparedQuery(TAKE_OVER).execute(Tuple.of(now, tenant, eventId, handler, now - leaseMs, now))
              .compose(taken -> taken.rowCount() == 1
                  ? Future.succeededFuture(new LedgerClaim.Claimed(now))
                  : look(db, eventId, handler, now, leaseMs, tries));
        });
  }

  /** Why the claim is not ours: done, or held by a fresh claim (or gone: then claim again). */
  private Future<LedgerClaim> look(SqlClient db, String eventId, String handler, long now, long leaseMs, int tries) {
    return db.preparedQuery(LOOK).execute(Tuple.of(tenant, eventId, handler)).compose(rs -> {
      if (rs.size() == 0) {
        return tries > 1 ? claim(db, eventId, handler, now, leaseMs, tries - 1)
            : Future.succeededFuture(new LedgerClaim.HeldElsewhere(now + CHURN_RETRY_MS));
      }
      var r = rs.iterator().next();
      if ("done".equals(r.getString(0))) {
        return Future.succeededFuture(new LedgerClaim.AlreadyDone());
      }
      return Future.succeededFuture(new LedgerClaim.HeldElsewhere(r.getLong(1) + leaseMs));
    });
  }

  /** Marks the claim done if it is still ours; false when another worker took it over. */
  Future<Boolean> done(SqlClient db, String eventId, String handler, long startedAt, long now) {
    return db.preparedQuery(DONE).execute(Tuple.of(now, tenant, eventId, handler, startedAt)).map(rs -> rs.rowCount() == 1);
  }

  /** Releases the claim (the handler failed) if it is still ours; false otherwise. */
  Future<Boolean> release(SqlClient db, String eventId, String handler, long startedAt) {
    return db.preparedQuery(RELEASE).execute(Tuple.of(tenant, eventId, handler, startedAt)).map(rs -> rs.rowCount() == 1);
  }

  /** Deletes up to {@code max} rows claimed more than 30 days ago. */
  Future<Integer> prune(SqlClient db, long now, int max) {
    return db.preparedQuery(PRUNE).execute(Tuple.of(tenant, now - ProcessedEventLedger.RETENTION_MS, max))
        .map(RowSet::rowCount);
  }
}
