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
  /** Rows written by the open transaction (see {@link #takeWritten}). */
  private int written;

  public OutboxWriter(Connection writer, String tenant) throws SQLException {
    this.tenant = tenant;
    this.insert = writer.prepareStatement("INSERT INTO event_queue"
        + "(event_id, type, body, status, attempts, available_at, created_at, stored_seq)"
        + " VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)");
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

  /** Rows written since the last call (the caller counts them once its transaction committed). */
  public int takeWritten() {
    int n = written;
    written = 0;
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
    insert.setLong(4, nowMs);
    insert.setLong(5, nowMs);
    if (storedSeq == null) {
      insert.setNull(6, Types.INTEGER);
    } else {
      insert.setLong(6, storedSeq);
    }
    insert.addBatch();
    batched++;
    written++;
  }

  public void close() {
    try {
      insert.close();
    } catch (SQLException ignored) {
      // closing anyway
    }
  }
}
