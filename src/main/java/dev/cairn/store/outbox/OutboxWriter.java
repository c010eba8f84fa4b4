package dev.cairn.store.outbox;

import dev.cairn.store.PersistResult;
import dev.cairn.store.Removal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;

/**
 * The single path that inserts outbox rows ({@link #add} / {@link #enqueue}). It runs on the tenant
 * store's writer connection, inside the transaction that made the change, so the data and its domain
 * events commit (or roll back) together. An EventStored row names its event by store seq
 * ({@code stored_seq}) instead of copying it: the JSON is joined when the row is read (from
 * {@code removed_events} once the event has left the store).
 */
public final class OutboxWriter {
  private final String tenant;
  private final PreparedStatement insert;
  private int batched;
  /** Rows written by the open transaction still to be delivered (see {@link #takeWritten}). */
  private int written;
  /** Rows written done by the open transaction (see {@link #settleOnWrite}, {@link #takeSettled}). */
  private int settled;
  /**
   * No handler runs outside the DB ({@code outbox.backend=db}, no forward relays): rows are written
   * {@code done}, so no claim transaction has to follow every write to mark them. The search indexer
   * reads them by id whatever their status; they are pruned with the other done rows.
   */
  private boolean settleOnWrite;

  public OutboxWriter(Connection writer, String tenant) throws SQLException {
    this.tenant = tenant;
    this.insert = writer.prepareStatement("INSERT INTO event_queue"
        + "(event_id, type, body, status, attempts, available_at, created_at, stored_seq)"
        + " VALUES (?, ?, ?, ?, 0, ?, ?, ?)");
  }

  /** From now on rows are written done (see the field); call before the first write. */
  public void settleOnWrite() {
    this.settleOnWrite = true;
  }

  /** Adds the domain events of one persist outcome: EventStored (naming the event), then one EventDeleted per removal. */
  public void add(PersistResult result, long nowMs) throws SQLException {
    if (!(result instanceof PersistResult.Stored s)) {
      return;
    }
    DomainEvent stored = DomainEvent.stored(tenant, s.seq(), nowMs);
    row(stored.eventId(), stored.type(), "", nowMs, s.seq());
    for (Removal r : s.removed()) {
      DomainEvent d = DomainEvent.deleted(tenant, r, nowMs);
      row(d.eventId(), d.type(), d.body(), nowMs, null);
    }
  }

  /** Enqueues {@code events} (removals outside a batch: NIP-40 expiry); call only inside the writer's open transaction. */
  public void enqueue(List<DomainEvent> events) throws SQLException {
    for (DomainEvent e : events) {
      row(e.eventId(), e.type(), e.body(), e.occurredAt(), null);
    }
    flush();
  }

  /** The domain events of removals outside a batch (NIP-40 expiry). */
  public List<DomainEvent> eventsOf(List<Removal> removals, long nowMs) {
    List<DomainEvent> out = new java.util.ArrayList<>(removals.size());
    for (Removal r : removals) {
      out.add(DomainEvent.deleted(tenant, r, nowMs));
    }
    return out;
  }

  /** Rows to deliver written since the last call (the caller counts them once its transaction committed). */
  public int takeWritten() {
    int n = written;
    written = 0;
    return n;
  }

  /** Rows written done since the last call (0 unless {@link #settleOnWrite}). */
  public int takeSettled() {
    int n = settled;
    settled = 0;
    return n;
  }

  /** Writes what {@link #add} batched. */
  public void flush() throws SQLException {
    if (batched > 0) {
      insert.executeBatch();
      batched = 0;
    }
  }

  private void row(String eventId, String type, String body, long nowMs, Long storedSeq) throws SQLException {
    insert.setString(1, eventId);
    insert.setString(2, type);
    insert.setString(3, body);
    insert.setString(4, settleOnWrite ? "done" : "pending");
    insert.setLong(5, nowMs);
    insert.setLong(6, nowMs);
    if (storedSeq == null) {
      insert.setNull(7, Types.INTEGER);
    } else {
      insert.setLong(7, storedSeq);
    }
    insert.addBatch();
    batched++;
    if (settleOnWrite) {
      settled++;
    } else {
      written++;
    }
  }

  public void close() {
    try {
      insert.close();
    } catch (SQLException ignored) {
      // closing anyway
    }
  }
}
