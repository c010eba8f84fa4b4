package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each tenant has its own writer lane: one tenant's stuck DB does not hold up another's commits. */
/** SQLite only: locks a tenant's SQLite file. */
@org.junit.jupiter.api.Tag("sqlite-only")
class TenantWritersTest {

  @Test
  void aLockedTenantDbDelaysOnlyItsOwnWrites() throws Exception {
    JsonObject config = new JsonObject().put("tenants", new JsonArray()
        .add(new JsonObject().put("id", "slow")).add(new JsonObject().put("id", "fast")));
    try (TestRelay relay = TestRelay.start(config, Map.of("CAIRN_STORE_WRITERS", "2"));
        RelayClient slow = relay.connect("/t/slow");
        RelayClient fast = relay.connect("/t/fast")) {
      EventSigner author = EventSigner.random();
      assertTrue(slow.publishAndWait(Events.note(author, "warm", List.of())).getBoolean(2));
      JsonObject stuck = Events.note(author, "waits for the lock", List.of());
      try (Connection other = DriverManager.getConnection(
          "jdbc:sqlite:" + relay.dataDir().resolve("tenants").resolve("slow.db"));
          Statement st = other.createStatement()) {
        st.execute("PRAGMA busy_timeout = 10000");
        st.execute("BEGIN IMMEDIATE"); // another process holds slow.db's write lock
        slow.publish(stuck);
        for (int i = 0; i < 5; i++) {
          JsonArray ok = fast.publishAndWait(Events.note(author, "fast " + i, List.of()));
          assertTrue(ok.getBoolean(2), ok.encode());
        }
        assertEquals(null, slow.poll(Duration.ZERO), "slow's commit is still waiting for its lock");
        st.execute("ROLLBACK");
      }
      JsonArray ok = slow.await(f -> f.getString(0).equals("OK"));
      assertEquals(stuck.getString("id"), ok.getString(1));
      assertTrue(ok.getBoolean(2), "stored once the lock is gone: " + ok.encode());
    }
  }
}
