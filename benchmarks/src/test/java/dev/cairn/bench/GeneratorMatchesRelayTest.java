package dev.cairn.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.bench.gen.GenerateEvents;
import dev.cairn.nostr.EventId;
import dev.cairn.nostr.EventParser;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.sig.Bip340Verifier;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generator's own signer and canonical serializer (kept independent so that it cannot inherit a
 * relay bug, and deterministic where EventSigner draws aux randomness) agree with the relay's parser,
 * id and sig-worker check on every generated event.
 */
class GeneratorMatchesRelayTest {
  @Test
  void relayAcceptsEveryGeneratedEvent(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("ev.jsonl");
    assertTrue(GenerateEvents.generate(new String[] {"--count", "500", "--authors", "25", "--seed", "8",
        "--out", f.toString(), "--verify-sample", "0"}));
    Bip340Verifier verifier = new Bip340Verifier();
    int n = 0;
    for (String line : Files.readAllLines(f)) {
      NostrEvent e = EventParser.parse(line);
      assertEquals(e.id(), EventId.compute(e), line);
      assertNull(verifier.check(e), line);
      n++;
    }
    assertEquals(500, n);
  }
}
