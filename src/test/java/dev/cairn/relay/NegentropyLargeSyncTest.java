package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NIP-77 over a set large enough to be reconciled off the event loop, with the smallest frame size
 * limit on both sides so that the sync takes several rounds: both sides still learn exactly the
 * difference.
 */
/** SQLite only: preloads the SQLite files directly. */
@org.junit.jupiter.api.Tag("sqlite-only")
class NegentropyLargeSyncTest {
  @TempDir Path dataDir;

  @Test
  void twentyFiveThousandEventsOnePercentApartInSeveralRounds() throws Exception {
    // over NegentropySessions.INLINE_MAX_ITEMS: the replies are computed on the worker pool
    SyncFixture f = SyncFixture.seed(dataDir, 25_000, 250, 77);
    JsonObject config = new JsonObject().put("limits", new JsonObject().put("negentropy_frame_size_limit", 4096));
    try (TestRelay relay = TestRelay.startOn(dataDir, config); RelayClient c = relay.connect()) {
      NegentropySync.Result r = NegentropySync.run(c, "big", new JsonObject(), f.client, 4096, Duration.ofSeconds(30));
      assertNull(r.error());
      assertEquals(f.clientOnly, r.have());
      assertEquals(f.relayOnly, r.need());
      assertTrue(r.rounds() > 2, "rounds: " + r.rounds());
    }
  }
}
