package dev.cairn.store.outbox;

import dev.cairn.nostr.JsonStrings;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.Removal;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One domain event as written to the outbox (CONTRACT section 5): {@code EventStored} with the Nostr
 * event as payload, or {@code EventDeleted} with id, kind, pubkey and reason. Built on the writer
 * thread inside the event's transaction, so the payload is spliced in as already-serialized JSON.
 */
public record DomainEvent(String eventId, String type, String tenant, long seq, long occurredAt, String payloadJson) {
  public static final String EVENT_STORED = "EventStored";
  public static final String EVENT_DELETED = "EventDeleted";

  public static DomainEvent stored(String tenant, long seq, NostrEvent event, long nowMs) {
    return new DomainEvent(newEventId(), EVENT_STORED, tenant, seq, nowMs, event.json());
  }

  public static DomainEvent deleted(String tenant, Removal r, long nowMs) {
    String payload = "{\"id\":" + JsonStrings.quote(r.id()) + ",\"kind\":" + r.kind() + ",\"pubkey\":"
        + JsonStrings.quote(r.pubkey()) + ",\"reason\":" + JsonStrings.quote(r.reason().wireName()) + "}";
    return new DomainEvent(newEventId(), EVENT_DELETED, tenant, r.seq(), nowMs, payload);
  }

  /** The message body: {@code {"event_id","type","tenant","seq","occurred_at","payload"}}. */
  public String body() {
    StringBuilder b = new StringBuilder(payloadJson.length() + 160);
    b.append("{\"event_id\":\"").append(eventId).append("\",\"type\":\"").append(type).append("\",\"tenant\":");
    JsonStrings.quote(b, tenant);
    b.append(",\"seq\":").append(seq).append(",\"occurred_at\":").append(occurredAt)
        .append(",\"payload\":").append(payloadJson).append('}');
    return b.toString();
  }

  /**
   * A random (version 4) UUID. Dedup ids need uniqueness, not secrecy: ThreadLocalRandom avoids
   * SecureRandom's lock on the writer thread.
   */
  static String newEventId() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    long msb = (r.nextLong() & ~0xF000L) | 0x4000L;
    long lsb = (r.nextLong() & ~(0xC000000000000000L)) | 0x8000000000000000L;
    return new UUID(msb, lsb).toString();
  }
}
