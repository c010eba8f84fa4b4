package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.tree.Addresses;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A crashed child is redeployed by its manager and the relay keeps serving. */
class SupervisionTest {

  @Test
  void aCrashedConnWorkerIsRedeployedAndTheRelayKeepsServing() throws Exception {
    try (TestRelay relay = TestRelay.start(new JsonObject(), Map.of("CAIRN_TREE_CONN_WORKERS", "2"))) {
      EventSigner a = EventSigner.random();
      List<RelayClient> clients = new ArrayList<>();
      try {
        for (int i = 0; i < 8; i++) {
          RelayClient c = relay.connect();
          clients.add(c);
          assertTrue(c.publishAndWait(Events.note(a, "before " + i, List.of())).getBoolean(2));
        }
        // a message no conn-worker understands: its handler throws on its own context
        relay.server().vertx().eventBus().send(Addresses.connWorker(0), "poison");

        int survived = 0;
        int closed = 0;
        for (RelayClient c : clients) {
          long deadline = System.currentTimeMillis() + 1500;
          while (!c.isClosed() && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
          }
          if (c.isClosed()) {
            assertEquals((short) 1011, c.awaitClose(), "closed with internal error: " + c.closeReason());
            closed++;
          } else {
            assertTrue(c.publishAndWait(Events.note(a, "after", List.of())).getBoolean(2));
            survived++;
          }
        }
        assertEquals(8, survived + closed);
        // the worker is back: new connections (some land on worker 0) publish and query
        for (int i = 0; i < 6; i++) {
          try (RelayClient fresh = relay.connect()) {
            JsonObject e = Events.note(a, "fresh " + i, List.of());
            assertTrue(fresh.publishAndWait(e).getBoolean(2));
            assertEquals(1, fresh.query("q", new JsonObject().put("ids", new JsonArray().add(e.getString("id")))).size());
          }
        }
        try (RelayClient check = relay.connect()) {
          List<JsonObject> all = check.query("all", new JsonObject().put("authors", new JsonArray().add(a.pubkey())));
          assertTrue(all.size() >= 8 + 6, "nothing stored was lost");
        }
      } finally {
        clients.forEach(RelayClient::close);
      }
    }
  }

  @Test
  void aCrashedSigWorkerIsRedeployedAndSignaturesAreStillChecked() throws Exception {
    try (TestRelay relay = TestRelay.start(new JsonObject(), Map.of("CAIRN_TREE_SIG_WORKERS", "1"));
        RelayClient c = relay.connect()) {
      EventSigner a = EventSigner.random();
      relay.server().vertx().eventBus().send(Addresses.sigWorker(0), "poison");
      Thread.sleep(200);
      JsonObject good = Events.note(a, "ok", List.of());
      JsonArray ok = null;
      for (int i = 0; i < 20; i++) {
        ok = c.publishAndWait(good);
        if (ok.getBoolean(2)) {
          break;
        }
        Thread.sleep(100); // an event caught by the restart is failed back with error: and retried
      }
      assertTrue(ok.getBoolean(2), ok.encode());
      JsonObject forged = Events.note(a, "forged", List.of());
      String sig = forged.getString("sig");
      forged.put("sig", sig.substring(0, 127) + (sig.charAt(127) == '0' ? '1' : '0'));
      JsonArray refused = c.publishAndWait(forged);
      assertTrue(!refused.getBoolean(2) && refused.getString(3).startsWith("invalid:"), refused.encode());
    }
  }

  @Test
  void aCrashedDatabaseEngineIsRedeployedAndNothingStoredIsLost() throws Exception {
    try (TestRelay relay = TestRelay.start(); RelayClient c = relay.connect()) {
      EventSigner a = EventSigner.random();
      JsonObject before = Events.note(a, "before the crash", List.of());
      assertTrue(c.publishAndWait(before).getBoolean(2));
      relay.server().vertx().eventBus().send(Addresses.DATABASE_ENGINE, "poison");
      JsonObject after = Events.note(a, "after the crash", List.of());
      JsonArray ok = null;
      for (int i = 0; i < 50; i++) {
        ok = c.publishAndWait(after);
        if (ok.getBoolean(2)) {
          break;
        }
        assertTrue(ok.getString(3).startsWith("error:"), ok.encode()); // failed back while restarting
        Thread.sleep(100);
      }
      assertTrue(ok.getBoolean(2), ok.encode());
      List<JsonObject> all = c.query("all", new JsonObject().put("authors", new JsonArray().add(a.pubkey())));
      assertEquals(2, all.size(), "both events are stored and queryable after the redeploy");
    }
  }
}
