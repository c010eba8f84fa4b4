package dev.cairn.store.outbox;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.Removal;
import io.vertx.core.json.JsonObject;
import java.util.UUID;

/**
 * One domain event as written to the outbox (CONTRACT section 5): {@code EventStored} with the Nostr
 * event as payload, or {@code EventDeleted} with id, kind, pubkey and reason.
 */
public record DomainEvent(String eventId, String type, String tenant, long seq, long occurredAt, JsonObject payload) {
  public static final String EVENT_STORED = "EventStored";
  public static final String EVENT_DELETED = "EventDeleted";

  public static DomainEvent stored(String tenant, long seq, NostrEvent event, long nowMs) {
    return new DomainEvent(UUID.randomUUID().toString(), EVENT_STORED, tenant, seq, nowMs, new JsonObject(event.json()));
  }

  public static DomainEvent deleted(String tenant, Removal r, long nowMs) {
    JsonObject payload = new JsonObject().put("id", r.id()).put("kind", r.kind()).put("pubkey", r.pubkey())
        .put("reason", r.reason().wireName());
    return new DomainEvent(UUID.randomUUID().toString(), EVENT_DELETED, tenant, r.seq(), nowMs, payload);
  }

  /** The message body: {@code {"event_id","type","tenant","seq","occurred_at","payload"}}. */
  public String body() {
    return new JsonObject().put("event_id", eventId).put("type", type).put("tenant", tenant).put("seq", seq)
        .put("occurred_at", occurredAt).put("payload", payload).encode();
  }
}
