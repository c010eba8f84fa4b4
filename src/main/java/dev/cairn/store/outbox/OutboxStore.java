package dev.cairn.store.outbox;

import io.vertx.core.Future;
import java.util.List;

/**
 * One tenant's outbox tables (seed 000) behind one async interface, so delivery's commands run the same
 * way on SQLite (JDBC on the tenant's writer lane) and on MySQL/MariaDB/TiDB (vertx-mysql-client,
 * several pods on one database). Every result completes on the Vert.x context of the caller (none:
 * on whatever thread finished the work). Times are epoch ms, given by the caller (the engine's
 * clock stamps claims), so tests can move time.
 *
 * <p>Guarantees both dialects keep: a row is claimed by one claimer at a time (a claim older than the
 * lease is taken over: stale-claim recovery); a settlement applies only while its claim is still the
 * settler's ({@code claimed_at} is the owner token); a ledger {@code (event_id, handler)} is held by
 * one worker at a time (the table's key decides), and done/release apply only with the claim's
 * {@code started_at}.
 */
public interface OutboxStore {

  /**
   * Claims up to {@code limit} due rows: stale claims ({@code processing}, claimed at or before
   * {@code now - leaseMs}) first, then {@code pending} rows with {@code available_at <= now} in due
   * order; they become {@code processing} with {@code claimed_at = now}. With {@code withBody} an
   * EventStored row carries the stored event's domain-event body. {@code nextDueMs}: the earliest due
   * row or lease end left (-1: none).
   */
  Future<OutboxQueue.Claim> claimDue(long now, int limit, long leaseMs, boolean withBody);

  /**
   * {@link #claimDue} and marks the claimed rows done in the same transaction (no handler outside the
   * DB waits for them): the answer has no rows and {@code settled} = how many were marked done.
   */
  Future<OutboxQueue.Claim> claimAndMarkDone(long now, int limit, long leaseMs);

  /** Applies each settlement whose claim is still ours (done, retry, dead-letter, defer). */
  Future<OutboxQueue.Settled> settle(List<Settlement> settlements);

  /** Claims {@code (eventId, handler)} in the processed-event ledger, taking over claims older than {@code leaseMs}. */
  Future<LedgerClaim> claimLedger(String eventId, String handler, long now, long leaseMs);

  /**
   * Marks the ledger claim done ({@code done}) or releases it (the handler failed), only if it is
   * still the one started at {@code startedAt}; true when it was.
   */
  Future<Boolean> finishLedger(String eventId, String handler, long startedAt, boolean done, long now);

  /** Deletes up to {@code max} done outbox rows and up to {@code max} ledger rows past their retention. */
  Future<Pruned> prune(long now, int max);

  /** Rows pruned: outbox (done, older than 30 days) and ledger (claimed more than 30 days ago). */
  record Pruned(int outboxRows, int ledgerRows) {}

  /**
   * Outbox rows not yet delivered (pending or claimed), as this process knows it, with no query
   * ({@code cairn_outbox_pending}).
   */
  long backlog();
}
