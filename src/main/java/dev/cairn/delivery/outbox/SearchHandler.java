package dev.cairn.delivery.outbox;

import dev.cairn.store.outbox.DomainEvent;
import io.vertx.core.Future;

/**
 * {@code search}: keeps the tenant's NIP-50 FTS5 index (through database-engine). EventStored indexes
 * the stored row by seq, EventDeleted drops it: keyed upserts and removes, safe to re-run.
 */
final class SearchHandler implements OutboxHandler {
  static final String NAME = "search";

  private final DbClient db;

  SearchHandler(DbClient db) {
    this.db = db;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Future<Void> handle(OutboxMessage m) {
    if (!DomainEvent.EVENT_STORED.equals(m.type()) && !DomainEvent.EVENT_DELETED.equals(m.type())) {
      return Future.succeededFuture();
    }
    return db.indexSearch(m.tenant(), m.type(), m.seq());
  }
}
