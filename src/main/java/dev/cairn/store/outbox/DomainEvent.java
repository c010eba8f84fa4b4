package dev.cairn.store.outbox;

import dev.cairn.nostr.JsonStrings;
import dev.cairn.store.Removal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One domain event as written to the outbox (CONTRACT section 5): {@code EventStored} with the Nostr
 * event as payload, or {@code EventDeleted} with id, kind, pubkey and reason. An EventStored row does
 * not copy the event: it names the store seq and its payload is the stored JSON, joined when the row
 * is read ({@code payloadJson} null); a removal before then copies the JSON into the row.
 */
public record DomainEvent(String eventId, String type, String tenant, long seq, long occurredAt, String payloadJson) {
  public static final String EVENT_STORED = "EventStored";
  public static final String EVENT_DELETED = "EventDeleted";

  /** EventStored of the event stored under {@code seq}: its payload is joined from the store when read. */
  public static DomainEvent stored(String eventId, String tenant, long seq, long nowMs) {
    return new DomainEvent(eventId, EVENT_STORED, tenant, seq, nowMs, null);
  }

  /** EventDeleted of the removed event {@code r}: its id, kind, pubkey and why it left. */
  public static DomainEvent deleted(String eventId, String tenant, Removal r, long nowMs) {
    String payload = "{\"id\":" + JsonStrings.quote(r.id()) + ",\"kind\":" + r.kind() + ",\"pubkey\":"
        + JsonStrings.quote(r.pubkey()) + ",\"reason\":" + JsonStrings.quote(r.reason().wireName()) + "}";
    return new DomainEvent(eventId, EVENT_DELETED, tenant, r.seq(), nowMs, payload);
  }

  /** The message body: {@code {"event_id","type","tenant","seq","occurred_at","payload"}}. */
  public String body() {
    return body(eventId, type, tenant, seq, occurredAt, payloadJson);
  }

  public static String body(String eventId, String type, String tenant, long seq, long occurredAt, String payloadJson) {
    return head(eventId, type, tenant, seq, occurredAt, payloadJson.length()).append(payloadJson).append('}').toString();
  }

  /**
   * The UTF-8 body of an EventStored whose payload is the stored event's JSON bytes, copied as they are:
   * decoding them into a String and encoding it again for the broker cost the relay a few µs per event
   * (most event JSON holds characters beyond Latin-1, which Java keeps as UTF-16). {@code eventJson} null:
   * the event is gone.
   */
  public static byte[] storedBody(String eventId, String tenant, long seq, long occurredAt, byte[] eventJson) {
    if (eventJson == null) { // gone past the feed's retention: a null payload rather than a blocked queue
      return body(eventId, EVENT_STORED, tenant, seq, occurredAt, "null").getBytes(StandardCharsets.UTF_8);
    }
    byte[] head = head(eventId, EVENT_STORED, tenant, seq, occurredAt, 0).toString().getBytes(StandardCharsets.UTF_8);
    byte[] body = Arrays.copyOf(head, head.length + eventJson.length + 1);
    System.arraycopy(eventJson, 0, body, head.length, eventJson.length);
    body[body.length - 1] = '}';
    return body;
  }

  /** The body up to its payload: {@code {"event_id",...,"payload":}. */
  private static StringBuilder head(String eventId, String type, String tenant, long seq, long occurredAt, int room) {
    StringBuilder b = new StringBuilder(room + 160);
    b.append("{\"event_id\":\"").append(eventId).append("\",\"type\":\"").append(type).append("\",\"tenant\":");
    JsonStrings.quote(b, tenant);
    return b.append(",\"seq\":").append(seq).append(",\"occurred_at\":").append(occurredAt).append(",\"payload\":");
  }
}
