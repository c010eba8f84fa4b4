package dev.cairn.store.mysql;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.outbox.OutboxStore;
import java.util.List;

/**
 * One dialect's outbox under test: events written through that dialect's real write path (so the
 * outbox rows are the ones production writes), two OutboxStores over the same tenant ("two pods"),
 * and a look at the raw rows to check what the store did.
 */
interface OutboxFixture extends AutoCloseable {
  String TENANT = "acme";

  /** The first pod's store. */
  OutboxStore store();

  /** A second, independent store over the same tenant data (MySQL: its own pool). */
  OutboxStore secondPod();

  /** Persists {@code events} through the dialect's write path; the backlog counts their rows. */
  void write(List<NostrEvent> events) throws Exception;

  /** The backlog as the dialect knows it after every pod's settles (MySQL: counted again). */
  long backlogNow() throws Exception;

  /** One outbox row as stored, or null. */
  RowState row(long id) throws Exception;

  /** The ledger row's status for {@code (eventId, handler)}, or null. */
  String ledger(String eventId, String handler) throws Exception;

  /** Ledger rows of the tenant. */
  long ledgerRows() throws Exception;

  record RowState(String status, int attempts, long availableAt, Long claimedAt, String lastError) {}
}
