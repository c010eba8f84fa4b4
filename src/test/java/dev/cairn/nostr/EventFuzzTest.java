package dev.cairn.nostr;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Event documents (the CLI import, the store's rows, EVENT frames' payloads) into events
 * (docs/fuzzing.md). Invariants: an event or InvalidMessageException, nothing else; bytes and text
 * agree; a parsed event re-serialized by EventJson parses to the same event; the id of its fields
 * verifies through the stored JSON as through the fields.
 */
class EventFuzzTest {
  @FuzzTest(maxDuration = "10s")
  void event(byte[] json) throws InvalidMessageException {
    FuzzSupport.Outcome fromBytes = FuzzSupport.outcome(() -> EventParser.parse(json));
    String text = FuzzSupport.strictUtf8(json);
    if (text != null) {
      FuzzSupport.assertSameOutcome(fromBytes, FuzzSupport.outcome(() -> EventParser.parse(text)));
    }
    if (fromBytes.ok()) {
      FuzzSupport.assertEventRoundTrip((NostrEvent) fromBytes.value());
    }
  }
}
