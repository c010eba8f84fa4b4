package dev.cairn.delivery.outbox;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/** A domain event as handlers see it, parsed from the outbox body (CONTRACT section 5). */
public record OutboxMessage(String eventId, String type, String tenant, long seq, long occurredAt, JsonObject payload) {
  public static OutboxMessage parse(byte[] body) {
    JsonObject j = new JsonObject(Buffer.buffer(body));
    return new OutboxMessage(j.getString("event_id"), j.getString("type"), j.getString("tenant"),
        j.getLong("seq", 0L), j.getLong("occurred_at", 0L), j.getJsonObject("payload", new JsonObject()));
  }
}
