package dev.cairn.store.mysql;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.SqliteTenantStore;
import dev.cairn.store.TenantWriters;
import dev.cairn.store.outbox.OutboxStore;
import dev.cairn.store.outbox.SqliteOutboxStore;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;

/** The SQLite dialect: a tenant file in a temp dir, written by SqliteTenantStore.persist, on a writer lane. */
final class SqliteOutboxFixture implements OutboxFixture {
  private final Vertx vertx = Vertx.vertx();
  private final TenantWriters writers = new TenantWriters(vertx.getOrCreateContext(), "outbox-test-writer", 1);
  private final SqliteTenantStore tenantStore;
  private final SqliteOutboxStore store;
  private final SqliteOutboxStore second;

  SqliteOutboxFixture(Path dir) {
    tenantStore = SqliteTenantStore.open(dir.resolve("tenants").resolve(TENANT + ".db"), 1);
    store = new SqliteOutboxStore(TENANT, tenantStore, writers);
    second = new SqliteOutboxStore(TENANT, tenantStore, writers);
  }

  @Override
  public OutboxStore store() {
    return store;
  }

  @Override
  public OutboxStore secondPod() {
    return second;
  }

  @Override
  public void write(List<NostrEvent> events) {
    tenantStore.persist(events, System.currentTimeMillis() / 1000);
  }

  @Override
  public long backlogNow() {
    return store.backlog();
  }

  @Override
  public RowState row(long id) {
    return tenantStore.outboxRead(sql -> {
      PreparedStatement ps = sql.prepare("SELECT status, attempts, available_at, claimed_at, last_error"
          + " FROM event_queue WHERE id = ?");
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        long claimed = rs.getLong(4);
        Long claimedAt = rs.wasNull() ? null : claimed;
        return new RowState(rs.getString(1), rs.getInt(2), rs.getLong(3), claimedAt, rs.getString(5));
      }
    });
  }

  @Override
  public String ledger(String eventId, String handler) {
    return tenantStore.outboxRead(sql -> {
      PreparedStatement ps = sql.prepare("SELECT status FROM processed_events WHERE event_id = ? AND handler = ?");
      ps.setString(1, eventId);
      ps.setString(2, handler);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    });
  }

  @Override
  public long ledgerRows() {
    return tenantStore.outboxRead(sql -> {
      try (ResultSet rs = sql.prepare("SELECT COUNT(*) FROM processed_events").executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    });
  }

  @Override
  public void close() throws Exception {
    writers.execute(TENANT, () -> {
      tenantStore.close();
      return null;
    }).toCompletionStage().toCompletableFuture().get();
    writers.shutdown(10_000);
    vertx.close().toCompletionStage().toCompletableFuture().get();
  }

  @Override
  public String toString() {
    return "sqlite";
  }
}
