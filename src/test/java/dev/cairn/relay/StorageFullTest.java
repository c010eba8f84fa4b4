package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.store.Tmpfs;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store whose disk fills: events are refused with a message that says so, reads go on, /readyz
 * says so (until the volume has room again, with no write needed), and once space is freed the same
 * relay stores again with nothing stored before lost. The
 * driver finalizes a statement whose step fails with SQLITE_FULL; before the writer compiled its
 * statements afresh after a failure, the relay refused every event ("could not store") until a
 * restart, space or no space, and logged a line per refused group commit.
 */
@Tag("sqlite-only") // the store's files on a small tmpfs
class StorageFullTest {
  private static final EventSigner ALICE = EventSigner.random();
  private static final SecureRandom RANDOM = new SecureRandom();

  @TempDir
  Path dir;

  @Test
  void aFullDiskRefusesWritesWithAReasonAndTheRelayStoresAgainOnceThereIsSpace() throws Exception {
    // both native libraries loaded from elsewhere first: one mapped from the tmpfs would keep it busy
    org.sqlite.SQLiteJDBCLoader.initialize();
    Path mount = Files.createDirectories(dir.resolve("disk"));
    assumeTrue(Tmpfs.mount(mount, "size=6m"), "cannot mount a tmpfs here");
    try {
      Path store = mount.resolve("store");
      List<String> stored = new ArrayList<>();
      try (TestRelay relay = TestRelay.startOn(store, new JsonObject());
          RelayClient client = relay.connect()) {
        JsonArray refused = null;
        for (int i = 0; i < 2_000 && refused == null; i++) { // ~40 KB each: the 6 MB fill long before
          JsonObject e = bigNote();
          JsonArray ok = client.publishAndWait(e);
          if (ok.getBoolean(2)) {
            stored.add(e.getString("id"));
          } else {
            refused = ok;
          }
        }
        assertNotNull(refused, "the disk never filled");
        assertTrue(stored.size() > 10, "stored before the disk filled: " + stored.size());
        assertEquals("error: the relay's storage is full, please retry later", refused.getString(3));

        HttpResponse<String> ready = readyz(relay);
        assertEquals(503, ready.statusCode(), ready.body());
        assertTrue(ready.body().contains("disk is full"), ready.body());
        assertEquals(stored.size(), found(client, stored), "every event OK'd before the disk filled reads back");

        // The engine tries a failed tenant again every 2 s, by a sweep whose empty transaction commits on a
        // full volume too: that is no sign of room, and /readyz stays 503.
        Thread.sleep(3 * dev.cairn.store.ExpirySweeps.FAILED_DB_RETRY_MS);
        assertEquals(503, readyz(relay).statusCode(), "still full: still not ready");

        assertTrue(Tmpfs.remount(mount, "size=128m"), "growing the tmpfs");
        // Ready again with no write needed (a pod out of its load balancer gets none): the next try finds
        // the volume with room.
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(15);
        while (readyz(relay).statusCode() != 200 && System.nanoTime() < until) {
          Thread.sleep(200);
        }
        assertEquals(200, readyz(relay).statusCode(), "ready again once the volume has room");
        for (int i = 0; i < 20; i++) {
          JsonObject e = bigNote();
          JsonArray ok = client.publishAndWait(e);
          assertTrue(ok.getBoolean(2), "with space again: " + ok.encode());
          stored.add(e.getString("id"));
        }
        assertEquals(200, readyz(relay).statusCode(), "ready after the writes");
        assertEquals(stored.size(), found(client, stored));
      }
      try (TestRelay again = TestRelay.startOn(store, new JsonObject()); RelayClient client = again.connect()) {
        assertEquals(stored.size(), found(client, stored), "every OK'd event after a restart");
      }
    } finally {
      assertTrue(Tmpfs.unmount(mount), "unmounting " + mount);
    }
  }

  /** A kind-1 note with 40 KB of random hex content: a disk fills in a few hundred. */
  private static JsonObject bigNote() {
    byte[] b = new byte[20_000];
    RANDOM.nextBytes(b);
    return Events.note(ALICE, HexFormat.of().formatHex(b), List.of());
  }

  /** How many of {@code ids} the relay returns. */
  private static int found(RelayClient client, List<String> ids) throws InterruptedException {
    int n = 0;
    for (int i = 0; i < ids.size(); i += 50) {
      JsonArray chunk = new JsonArray(ids.subList(i, Math.min(ids.size(), i + 50)));
      n += client.query("ids" + i, new JsonObject().put("ids", chunk)).size();
    }
    return n;
  }

  private static HttpResponse<String> readyz(TestRelay relay) throws Exception {
    return TestRelay.http().send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/readyz")).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
