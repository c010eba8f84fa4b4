package dev.cairn.store;

import dev.cairn.store.outbox.Settlement;
import java.util.List;

/**
 * database-engine's outbox work, from delivery's relay and consumers (seed 000). Each carries the
 * delivery-side {@code requestId} and is answered into {@code delivery.OutboxReply}. Writes run on the
 * engine's writer thread, in their own transaction; the engine's clock stamps claims.
 */
public sealed interface OutboxCommand extends DatabaseInbox {
  long requestId();

  String tenant();

  /**
   * Claims up to {@code limit} due rows (and stale claims older than {@code leaseMs}); with
   * {@code settle} they are marked done in the same transaction (no handler outside the DB waits for them).
   */
  record ClaimDue(long requestId, String tenant, int limit, long leaseMs, boolean settle) implements OutboxCommand {}

  /** Settles claimed rows: done, retry, dead-letter or defer, each only while the claim is ours. */
  record Settle(long requestId, String tenant, List<Settlement> settlements) implements OutboxCommand {
    public Settle {
      settlements = List.copyOf(settlements);
    }
  }

  /** Claims {@code (eventId, handler)} in the processed-event ledger ({@code leaseMs}: takeover age). */
  record ClaimLedger(long requestId, String tenant, String eventId, String handler, long leaseMs)
      implements OutboxCommand {}

  /** Marks the ledger claim done ({@code done}) or releases it, conditioned on {@code startedAt}. */
  record FinishLedger(long requestId, String tenant, String eventId, String handler, long startedAt, boolean done)
      implements OutboxCommand {}

}
