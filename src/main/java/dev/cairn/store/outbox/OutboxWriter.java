package dev.cairn.store.outbox;

import dev.cairn.store.PersistResult;
import dev.cairn.store.Removal;
import dev.cairn.store.Sql;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/**
 * The single path that inserts outbox rows ({@link #add} / {@link #enqueue}). It runs on the tenant
 * store's writer connection, inside the transaction that made the change, so the data and its domain
 * events commit (or roll back) together. An EventStored row names its event by store seq
 * ({@code stored_seq}) instead of copying it: the JSON is joined when the row is read (from
 * {@code removed_events} once the event has left the store).
 */
public final class OutboxWriter {
  /**
   * How rows are written. PENDING: a claim loop delivers them. DONE: no handler runs outside the DB
   * ({@code outbox.backend=db}, no forward relays), so no claim transaction has to follow every write to
   * mark them; the search indexer reads them by id whatever their status and they are pruned with the
   * other done rows. CLAIMED: {@code processing}, claimed by this process at the commit's time
   * ({@code outbox.backend=nats}): the relay publishes them straight from the commit ({@link #takeClaimed})
   * with no claim transaction and no second read of the event; a crash before they are settled leaves
   * ordinary claims, taken over after {@code outbox.claim_lease} like any other.
   */
  public enum Mode { PENDING, DONE, CLAIMED }

  private static final String INSERT = "INSERT INTO event_queue"
      + "(event_id, type, body, status, attempts, available_at, created_at, stored_seq, claimed_at)"
      + " VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?)";
  private static final String LAST_ID = "SELECT last_insert_rowid()";

  private final String tenant;
  private final DomainEventIds ids = new DomainEventIds();
  /** The writer connection's kept statements: the insert's batch lives on its statement until {@link #flush}. */
  private final Sql writer;
  private Mode mode = Mode.PENDING;
  private int batched;
  /** Rows written by the open transaction still to be delivered (see {@link #takeWritten}). */
  private int written;
  /** Rows written done by the open transaction (see {@link #takeSettled}). */
  private int settled;
  /** CLAIMED: rows batched but not flushed (their ids are known after the insert), then flushed ones. */
  private final List<OutboxRow> unflushed = new ArrayList<>();
  private final List<OutboxRow> claimed = new ArrayList<>();

  public OutboxWriter(Sql writer, String tenant) {
    this.tenant = tenant;
    this.writer = writer;
  }

  /** How rows are written from now on (see {@link Mode}); call before the first write. */
  public void mode(Mode mode) {
    this.mode = mode;
  }

  public Mode mode() {
    return mode;
  }

  /**
   * Adds the domain events of one persist outcome: EventStored (naming the event; {@code eventJson} is
   * its JSON, the body of a CLAIMED row), then one EventDeleted per removal.
   */
  public void add(PersistResult result, byte[] eventJson, long nowMs) throws SQLException {
    if (!(result instanceof PersistResult.Stored s)) {
      return;
    }
    DomainEvent stored = DomainEvent.stored(ids.next(nowMs), tenant, s.seq(), nowMs);
    row(stored.eventId(), stored.type(), "", nowMs, s.seq(),
        mode == Mode.CLAIMED ? DomainEvent.storedBody(stored.eventId(), tenant, s.seq(), nowMs, eventJson) : null,
        s.seq());
    for (Removal r : s.removed()) {
      DomainEvent d = DomainEvent.deleted(ids.next(nowMs), tenant, r, nowMs);
      String body = d.body();
      row(d.eventId(), d.type(), body, nowMs, null, claimBody(body), d.seq());
    }
  }

  /** Enqueues {@code events} (removals outside a batch: NIP-40 expiry); call only inside the writer's open transaction. */
  public void enqueue(List<DomainEvent> events) throws SQLException {
    for (DomainEvent e : events) {
      String body = e.body();
      row(e.eventId(), e.type(), body, e.occurredAt(), null, claimBody(body), e.seq());
    }
    flush();
  }

  /** The domain events of removals outside a batch (NIP-40 expiry). */
  public List<DomainEvent> eventsOf(List<Removal> removals, long nowMs) {
    List<DomainEvent> out = new java.util.ArrayList<>(removals.size());
    for (Removal r : removals) {
      out.add(DomainEvent.deleted(ids.next(nowMs), tenant, r, nowMs));
    }
    return out;
  }

  /** Rows to deliver written since the last call (the caller counts them once its transaction committed). */
  public int takeWritten() {
    int n = written;
    written = 0;
    return n;
  }

  /** Rows written done since the last call (0 unless {@link Mode#DONE}). */
  public int takeSettled() {
    int n = settled;
    settled = 0;
    return n;
  }

  /**
   * CLAIMED rows written since the last call, with their ids and bodies; the caller takes them once its
   * transaction committed (and drops them on a rollback).
   */
  public List<OutboxRow> takeClaimed() {
    if (claimed.isEmpty()) {
      return List.of();
    }
    List<OutboxRow> out = List.copyOf(claimed);
    claimed.clear();
    return out;
  }

  /** The open transaction rolled back: forgets what it batched, wrote and claimed. */
  public void rolledBack() {
    try {
      writer.prepare(INSERT).clearBatch();
    } catch (SQLException ignored) {
      // nothing batched to clear
    }
    batched = 0;
    written = 0;
    settled = 0;
    unflushed.clear();
    claimed.clear();
  }

  /** Writes what {@link #add} batched. */
  public void flush() throws SQLException {
    if (batched > 0) {
      writer.prepare(INSERT).executeBatch();
      batched = 0;
    }
    if (!unflushed.isEmpty()) {
      // one writer, one transaction, AUTOINCREMENT: the batch's rows got consecutive ids ending at the last
      long last;
      try (ResultSet rs = writer.prepare(LAST_ID).executeQuery()) {
        rs.next();
        last = rs.getLong(1);
      }
      long id = last - unflushed.size() + 1;
      for (OutboxRow r : unflushed) {
        claimed.add(new OutboxRow(id++, r.eventId(), r.type(), r.body(), 0, r.claimedAt(), r.seq()));
      }
      unflushed.clear();
    }
  }

  /** A body the row holds, as a CLAIMED row keeps it for the relay (UTF-8); null otherwise. */
  private byte[] claimBody(String body) {
    return mode == Mode.CLAIMED ? body.getBytes(StandardCharsets.UTF_8) : null;
  }

  /** {@code claimBody} and {@code aboutSeq}: the row's full body and its event's seq, kept for a CLAIMED row. */
  private void row(String eventId, String type, String body, long nowMs, Long storedSeq, byte[] claimBody,
      long aboutSeq) throws SQLException {
    PreparedStatement insert = writer.prepare(INSERT);
    insert.setString(1, eventId);
    insert.setString(2, type);
    insert.setString(3, body);
    insert.setString(4, switch (mode) {
      case PENDING -> "pending";
      case DONE -> "done";
      case CLAIMED -> "processing";
    });
    insert.setLong(5, nowMs);
    insert.setLong(6, nowMs);
    if (storedSeq == null) {
      insert.setNull(7, Types.INTEGER);
    } else {
      insert.setLong(7, storedSeq);
    }
    if (mode == Mode.CLAIMED) {
      insert.setLong(8, nowMs);
      unflushed.add(new OutboxRow(0, eventId, type, claimBody, 0, nowMs, aboutSeq));
    } else {
      insert.setNull(8, Types.INTEGER);
    }
    insert.addBatch();
    batched++;
    if (mode == Mode.DONE) {
      settled++;
    } else {
      written++;
    }
  }
}
