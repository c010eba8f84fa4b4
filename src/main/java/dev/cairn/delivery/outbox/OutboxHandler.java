package dev.cairn.delivery.outbox;

import io.vertx.core.Future;

/**
 * A handler of domain events. Each must be idempotent: the ledger narrows duplicates, but a crash after
 * the effect and before the ledger mark runs it again. Called on delivery's event loop; never blocks.
 */
public interface OutboxHandler {
  /** The ledger's handler name. */
  String name();

  Future<Void> handle(OutboxMessage message);
}
