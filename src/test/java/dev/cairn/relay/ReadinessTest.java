package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** /readyz answers 503 with a reason while a tenant DB refuses the engine's writes, 200 again after. */
class ReadinessTest {

  private static HttpResponse<String> readyz(TestRelay relay) throws Exception {
    return TestRelay.http().send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/readyz")).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> awaitStatus(TestRelay relay, int status) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    HttpResponse<String> r;
    do {
      r = readyz(relay);
      if (r.statusCode() == status) {
        return r;
      }
      Thread.sleep(200);
    } while (System.currentTimeMillis() < deadline);
    throw new AssertionError("/readyz stayed " + r.statusCode() + ": " + r.body());
  }

  @Test
  @org.junit.jupiter.api.Tag("sqlite-only") // holds the SQLite file lock
  void aTenantDbThatRefusesWritesMakesTheServerNotReady() throws Exception {
    try (TestRelay relay = TestRelay.start(new JsonObject(), Map.of("CAIRN_STORE_EXPIRY_SWEEP_INTERVAL", "1s"))) {
      assertEquals(200, readyz(relay).statusCode());
      String url = "jdbc:sqlite:" + relay.dataDir().resolve("tenants").resolve("default.db");
      try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
        st.execute("BEGIN EXCLUSIVE"); // holds the write lock: the engine's periodic write fails after busy_timeout
        HttpResponse<String> down = awaitStatus(relay, 503);
        JsonObject body = new JsonObject(down.body());
        assertTrue(body.getString("reason").contains("tenant default"), down.body());
        st.execute("COMMIT");
      }
      awaitStatus(relay, 200);
    }
  }
}
