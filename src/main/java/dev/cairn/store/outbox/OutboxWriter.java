package dev.cairn.store.outbox;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistResult;
import dev.cairn.store.Removal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The single path that inserts outbox rows ({@link #enqueue}). It runs on the tenant store's writer
 * connection, inside the transaction that made the change, so the data and its domain events commit
 * (or roll back) together.
 */
public final class OutboxWriter {
  private final String tenant;
  private final PreparedStatement insert;

  public OutboxWriter(Connection writer, String tenant) throws SQLException {
    this.tenant = tenant;
    this.insert = writer.prepareStatement("INSERT INTO event_queue"
        + "(event_id, type, body, status, attempts, available_at, created_at) VALUES (?, ?, ?, 'pending', 0, ?, ?)");
  }

  /** Enqueues {@code events}; call only inside the writer's open transaction. */
  public void enqueue(List<DomainEvent> events) throws SQLException {
    for (DomainEvent e : events) {
      insert.setString(1, e.eventId());
      insert.setString(2, e.type());
      insert.setString(3, e.body());
      insert.setLong(4, e.occurredAt());
      insert.setLong(5, e.occurredAt());
      insert.addBatch();
    }
    if (!events.isEmpty()) {
      insert.executeBatch();
    }
  }

  /** The domain events of one persist outcome: EventStored, then one EventDeleted per removal. */
  public List<DomainEvent> eventsOf(NostrEvent event, PersistResult result, long nowMs) {
    if (!(result instanceof PersistResult.Stored s)) {
      return List.of();
    }
    List<DomainEvent> out = new ArrayList<>(1 + s.removed().size());
    out.add(DomainEvent.stored(tenant, s.seq(), event, nowMs));
    for (Removal r : s.removed()) {
      out.add(DomainEvent.deleted(tenant, r, nowMs));
    }
    return out;
  }

  /** The domain events of removals outside a persist (NIP-40 expiry). */
  public List<DomainEvent> eventsOf(List<Removal> removals, long nowMs) {
    List<DomainEvent> out = new ArrayList<>(removals.size());
    for (Removal r : removals) {
      out.add(DomainEvent.deleted(tenant, r, nowMs));
    }
    return out;
  }

  public void close() {
    try {
      insert.close();
    } catch (SQLException ignored) {
      // closing anyway
    }
  }
}
