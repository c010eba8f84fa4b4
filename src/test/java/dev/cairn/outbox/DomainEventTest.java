package dev.cairn.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.Removal;
import dev.cairn.store.RemovalReason;
import dev.cairn.store.outbox.DomainEvent;
import dev.cairn.store.outbox.DomainEventIds;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The outbox body is the contract's JSON, with the event spliced in verbatim and a time-ordered (v7) UUID id. */
class DomainEventTest {

  @Test
  void storedBodyCarriesTheEventAsPayload() {
    NostrEvent e = EventSigner.random().sign(1_700_000_000L, 1, List.of(List.of("t", "x")), "quote \" and \\ and é\n");
    DomainEventIds ids = new DomainEventIds();
    DomainEvent d = DomainEvent.stored(ids.next(123L), "acme\"t", 42, 123L);
    JsonObject body = new JsonObject(Buffer.buffer(DomainEvent.storedBody(d.eventId(), "acme\"t", 42, 123L, e.json())));
    assertEquals(d.eventId(), body.getString("event_id"));
    assertEquals(7, UUID.fromString(body.getString("event_id")).version());
    assertEquals(2, UUID.fromString(body.getString("event_id")).variant());
    assertEquals("EventStored", body.getString("type"));
    assertEquals("acme\"t", body.getString("tenant"));
    assertEquals(42, body.getLong("seq"));
    assertEquals(123, body.getLong("occurred_at"));
    assertEquals(new JsonObject(e.jsonText()), body.getJsonObject("payload"));
    DomainEvent next = DomainEvent.stored(ids.next(123L), "acme", 42, 123L);
    assertNotEquals(d.eventId(), next.eventId());
    assertTrue(next.eventId().compareTo(d.eventId()) > 0, "ids of one writer grow in creation order");
  }

  @Test
  void idsOfOneWriterStayInCreationOrderPastTheCounter() {
    // 5,000 ids in one millisecond overflow the 12-bit counter into the next milliseconds: still ordered
    DomainEventIds ids = new DomainEventIds();
    String previous = ids.next(1_700_000_000_000L);
    for (int i = 0; i < 5_000; i++) {
      String id = ids.next(1_700_000_000_000L);
      assertTrue(id.compareTo(previous) > 0, id + " after " + previous);
      assertEquals(7, UUID.fromString(id).version());
      previous = id;
    }
    assertTrue(ids.next(1_600_000_000_000L).compareTo(previous) > 0, "a clock stepped back does not reorder ids");
  }

  @Test
  void deletedBodyNamesTheRemovedEvent() {
    Removal r = new Removal("ab".repeat(32), 30023, "cd".repeat(32), 7, RemovalReason.REPLACED);
    JsonObject body = new JsonObject(DomainEvent.deleted(new DomainEventIds().next(5L), "default", r, 5L).body());
    assertEquals("EventDeleted", body.getString("type"));
    JsonObject p = body.getJsonObject("payload");
    assertEquals("ab".repeat(32), p.getString("id"));
    assertEquals(30023, p.getInteger("kind"));
    assertEquals("cd".repeat(32), p.getString("pubkey"));
    assertEquals("replaced", p.getString("reason"));
    assertTrue(body.getLong("seq") == 7);
  }
}
